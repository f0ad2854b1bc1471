#include "k8s/controller/profile_run_job.h"

#include <simdjson.h>

#include <cstdint>
#include <cstdio>

#include "base/json_writer.h"
#include "k8s/controller/workload_profile.h"

namespace kraken::k8s {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;

Status JsonError(std::string_view what, simdjson::error_code e) {
  return InvalidInput(std::string(what) + ": " + simdjson::error_message(e));
}

std::string StringAt(element e, std::string_view key) {
  std::string_view v;
  return e[key].get(v) ? std::string() : std::string(v);
}

// The controller owner of an object's metadata as its workload; the object itself when none.
void ReadWorkload(element metadata, const ObjectRef& self, ProfileTarget* target) {
  target->workload = self;
  target->workload_uid = StringAt(metadata, "uid");
  array owners;
  if (metadata["ownerReferences"].get(owners)) return;
  for (element owner : owners) {
    bool controller = false;
    if (owner["controller"].get(controller) || !controller) continue;
    target->workload = {StringAt(owner, "apiVersion"), StringAt(owner, "kind"), self.namespace_name,
                        StringAt(owner, "name")};
    target->workload_uid = StringAt(owner, "uid");
    return;
  }
}

bool AsksForGpu(element container) {
  element limits;
  for (const char* part : {"limits", "requests"})
    if (!container["resources"][part].get(limits) && !limits["nvidia.com/gpu"].error()) return true;
  return false;
}

// The container to profile: the first asking for a GPU, else the first.
Result<element> GpuContainer(element spec) {
  array containers;
  if (spec["containers"].get(containers) || containers.size() == 0)
    return InvalidInput("pod spec has no containers");
  for (element c : containers)
    if (AsksForGpu(c)) return c;
  element first;
  if (containers.at(0).get(first)) return InvalidInput("pod spec has no containers");
  return first;
}

void CopyIfPresent(JsonWriter& json, element from, std::string_view key) {
  element value;
  if (!from[key].get(value)) json.Key(key).RawValue(simdjson::minify(value));
}

// The profiled container: name, resources, env, mounts, working dir as they were; the ncu
// image; ncu in front of the command (args unchanged: Kubernetes appends them).
Status WriteContainer(JsonWriter& json, element container, const std::string& image, const ProfileRunOptions& options) {
  array command;
  if (container["command"].get(command) || command.size() == 0)
    return InvalidInput("container '" + StringAt(container, "name") +
                        "' sets no command: ncu can only wrap a command the pod spec names");
  json.BeginObject().Field("name", StringAt(container, "name")).Field("image", image);
  json.Key("command").BeginArray();
  for (const std::string& word : NcuCommandPrefix(options.launch_count)) json.String(word);
  for (element word : command) json.RawValue(simdjson::minify(word));
  json.EndArray();
  for (std::string_view key : {"args", "env", "envFrom", "resources", "volumeMounts", "workingDir"})
    CopyIfPresent(json, container, key);
  json.EndObject();
  return Status::Ok();
}

}  // namespace

Result<std::vector<ProfileTarget>> ParseProfileTargets(std::string_view list_json, std::string_view kind,
                                                       const std::string& namespace_name) {
  simdjson::dom::parser parser;
  element doc;
  array items;
  if (auto e = parser.parse(list_json).get(doc); e) return JsonError(std::string(kind) + "List", e);
  if (auto e = doc["items"].get(items); e) return JsonError(std::string(kind) + "List: items", e);
  std::vector<ProfileTarget> out;
  for (element item : items) {
    element metadata, annotations, labels;
    std::string_view mode;
    if (item["metadata"].get(metadata) || metadata["annotations"].get(annotations) ||
        annotations[kProfileRunKey].get(mode))
      continue;
    if (!metadata["labels"].get(labels) && !labels[kProfileRunOfLabel].error()) continue;
    ProfileTarget t;
    t.annotated = {kind == "Job" ? "batch/v1" : "v1", std::string(kind), namespace_name, StringAt(metadata, "name")};
    if (kind == "Job") {
      t.workload = t.annotated;
      t.workload_uid = StringAt(metadata, "uid");
    } else {
      ReadWorkload(metadata, t.annotated, &t);
    }
    t.mode = std::string(mode);
    t.image = StringAt(annotations, kProfileImageKey);
    t.status = StringAt(annotations, kProfileRunStatusKey);
    element spec;
    auto pod_spec = kind == "Job" ? item["spec"]["template"]["spec"] : item["spec"];
    if (!pod_spec.get(spec)) t.pod_spec = simdjson::minify(spec);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> NcuCommandPrefix(int launch_count) {
  return {"ncu",          "--csv",          "--page",      "raw",
          "--section",    "SpeedOfLight",   "--section",   "SpeedOfLight_RooflineChart",
          "--section",    "LaunchStats",    "--section",   "Occupancy",
          "--target-processes", "all",      "--launch-count", std::to_string(launch_count)};
}

std::string ProfileJobName(const ObjectRef& workload) {
  std::string name = "kraken-ncu-" + WorkloadProfileName(workload);
  if (name.size() > 63) {
    // Cut, with a hash of the whole name so two long names that share 54 characters
    // still get two Jobs (FNV-1a: the same in every build, unlike std::hash).
    uint32_t hash = 2166136261u;
    for (unsigned char c : name) hash = (hash ^ c) * 16777619u;
    char hex[9];
    std::snprintf(hex, sizeof(hex), "%08x", hash);
    name = name.substr(0, 54) + "-" + hex;
  }
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  for (char& c : name)
    if (c == '.') c = '-';  // a label value may hold dots, a DNS label may not
  return name;
}

Result<std::string> ProfileJobJson(const ProfileTarget& target, const std::string& image,
                                   const ProfileRunOptions& options) {
  simdjson::dom::parser parser;
  element spec;
  if (target.pod_spec.empty() || parser.parse(target.pod_spec).get(spec))
    return InvalidInput(target.annotated.kind + " " + target.annotated.name + " has no pod spec");
  KRAKEN_ASSIGN_OR_RETURN(element container, GpuContainer(spec));
  const std::string job = ProfileJobName(target.workload);
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Field("apiVersion", "batch/v1").Field("kind", "Job").Key("metadata").BeginObject();
  json.Field("name", job).Field("namespace", target.workload.namespace_name);
  json.Key("labels").BeginObject().Field("app.kubernetes.io/managed-by", "kraken").Field(kProfileRunOfLabel, job);
  json.EndObject();
  if (!target.workload_uid.empty())
    json.Key("ownerReferences").BeginArray().BeginObject()
        .Field("apiVersion", target.workload.api_version).Field("kind", target.workload.kind)
        .Field("name", target.workload.name).Field("uid", target.workload_uid).EndObject().EndArray();
  // One try, no retries: a failed run is reported, not repeated.
  json.EndObject().Key("spec").BeginObject().Field("backoffLimit", 0).Key("template").BeginObject();
  json.Key("metadata").BeginObject().Key("labels").BeginObject().Field(kProfileRunOfLabel, job);
  json.EndObject().EndObject().Key("spec").BeginObject().Field("restartPolicy", "Never");
  for (std::string_view key : {"serviceAccountName", "initContainers", "volumes", "nodeSelector", "tolerations",
                               "affinity", "imagePullSecrets", "runtimeClassName", "priorityClassName"})
    CopyIfPresent(json, spec, key);
  json.Key("containers").BeginArray();
  KRAKEN_RETURN_IF_ERROR(WriteContainer(json, container, image, options));
  json.EndArray().EndObject().EndObject().EndObject().EndObject();
  return json.Take();
}

Result<JobState> ParseJobState(std::string_view job_json) {
  simdjson::dom::parser parser;
  element doc;
  if (auto e = parser.parse(job_json).get(doc); e) return JsonError("Job", e);
  JobState state;
  element status;
  if (doc["status"].get(status)) return state;
  array conditions;
  if (!status["conditions"].get(conditions))
    for (element c : conditions)
      if (StringAt(c, "type") == "Failed" && StringAt(c, "status") == "True") {
        state.phase = JobPhase::kFailed;
        state.reason = StringAt(c, "reason") + ": " + StringAt(c, "message");
        return state;
      }
  int64_t count = 0;
  if (!status["succeeded"].get(count) && count > 0) {
    state.phase = JobPhase::kSucceeded;
  } else if (!status["failed"].get(count) && count > 0) {
    state.phase = JobPhase::kFailed;
    state.reason = "the profile pod failed";
  } else if (!status["active"].get(count) && count > 0) {
    state.phase = JobPhase::kRunning;
  }
  return state;
}

Result<std::string> FirstPodName(std::string_view pod_list_json) {
  simdjson::dom::parser parser;
  element doc;
  array items;
  if (auto e = parser.parse(pod_list_json).get(doc); e) return JsonError("PodList", e);
  if (doc["items"].get(items) || items.size() == 0) return std::string();
  element metadata;
  if (items.at(0)["metadata"].get(metadata)) return std::string();
  return StringAt(metadata, "name");
}

}  // namespace kraken::k8s
