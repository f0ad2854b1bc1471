#include "k8s/controller/profile_run.h"

#include <cmath>
#include <map>

#include "base/json_writer.h"
#include "k8s/controller/annotation_writer.h"
#include "k8s/controller/workload_profile.h"

namespace kraken::k8s {
namespace {

constexpr char kNcuMode[] = "ncu";

std::string JobsPath(const std::string& namespace_name) {
  return "/apis/batch/v1/namespaces/" + namespace_name + "/jobs";
}
std::string PodsPath(const std::string& namespace_name) { return "/api/v1/namespaces/" + namespace_name + "/pods"; }

bool Finished(const ProfileTarget& t) { return t.status == "done" || t.status == "failed"; }

}  // namespace

std::string NcuStatusJson(const NcuRunFacts& facts, const std::string& job, const std::string& updated) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Field("job", job).Field("kernels", facts.kernels);
  json.Field("kernelTimeUs", std::round(facts.kernel_time_s * 1e7) / 10);
  if (!facts.bound.empty()) json.Field("bound", facts.bound);
  json.Field("computeBoundShare", std::round(facts.compute_bound_share * 1000) / 1000);
  json.Field("memoryBoundShare", std::round(facts.memory_bound_share * 1000) / 1000);
  if (!facts.device.empty()) json.Field("device", facts.device);
  json.Field("imported", updated).EndObject();
  return json.Take();
}

Status RecordNcuProfile(const KubeClient& client, const ObjectRef& workload, const NcuRunFacts& facts,
                        const std::string& job, const std::string& updated) {
  const std::string path = WorkloadProfilePath(workload);
  Result<std::string> stored = client.Get(path);
  if (!stored.ok() && stored.status().code() == StatusCode::kNotFound) {
    // No DCGM pass has written it yet: the object with what is known (nothing measured).
    WorkloadProfile empty;
    empty.workload = workload;
    empty.facts.workload_class = "unknown";
    KRAKEN_RETURN_IF_ERROR(client.Post(path.substr(0, path.rfind('/')), WorkloadProfileJson(empty, updated)));
  } else if (!stored.ok()) {
    return stored.status();
  }
  return client.Patch(path, "{\"status\":{\"ncu\":" + NcuStatusJson(facts, job, updated) + "}}", kJsonMergePatch);
}

Status ProfileRunner::RunPass(const std::vector<std::string>& namespaces, const std::string& updated,
                              ProfileRunStats* stats) {
  for (const std::string& ns : namespaces) {
    // Grouped by profile name: the pods of one ReplicaSet or Job share one run.
    std::map<std::string, std::vector<ProfileTarget>> groups;
    for (const auto& [path, kind] : {std::pair{PodsPath(ns), "Pod"}, std::pair{JobsPath(ns), "Job"}}) {
      KRAKEN_ASSIGN_OR_RETURN(std::string list, client_.Get(path));
      auto targets = ParseProfileTargets(list, kind, ns);
      if (!targets.ok()) return targets.status().WithContext("GET " + path);
      for (ProfileTarget& t : *targets) groups[WorkloadProfileName(t.workload)].push_back(std::move(t));
    }
    for (const auto& [name, group] : groups) {
      ++stats->workloads;
      bool finished = false;
      for (const ProfileTarget& t : group) finished = finished || Finished(t);
      if (finished) {
        ++stats->finished;
        continue;
      }
      KRAKEN_ASSIGN_OR_RETURN(Outcome outcome, Advance(group, updated, stats));
      if (outcome.status == "pending") ++stats->pending;
      if (outcome.status == "running") ++stats->running;
      if (outcome.status == "done") ++stats->done;
      if (outcome.status == "failed") ++stats->failed;
      KRAKEN_RETURN_IF_ERROR(Mark(group, ProfileJobName(group.front().workload), outcome));
    }
  }
  return Status::Ok();
}

Result<ProfileRunner::Outcome> ProfileRunner::Advance(const std::vector<ProfileTarget>& group,
                                                      const std::string& updated, ProfileRunStats* stats) {
  const ProfileTarget& first = group.front();
  if (first.mode != kNcuMode)
    return Outcome{"failed", "kraken.io/profile-run '" + first.mode + "': kraken runs only 'ncu'"};
  const std::string job = ProfileJobName(first.workload);
  Result<std::string> stored = client_.Get(JobsPath(first.workload.namespace_name) + "/" + job);
  if (!stored.ok() && stored.status().code() == StatusCode::kNotFound) {
    for (const ProfileTarget& t : group)
      if (t.status == "pending" || t.status == "running")
        return Outcome{"failed", "profile Job " + job + " is gone (deleted before kraken read its result)"};
    return Create(group, stats);
  }
  if (!stored.ok()) return stored.status();
  auto state = ParseJobState(*stored);
  if (!state.ok()) return state.status().WithContext("profile Job " + job);
  switch (state->phase) {
    case JobPhase::kPending:
      return Outcome{"pending", ""};
    case JobPhase::kRunning:
      return Outcome{"running", ""};
    case JobPhase::kFailed:
      return Outcome{"failed", "profile Job " + job + " failed: " + state->reason};
    case JobPhase::kSucceeded:
      break;
  }
  return Collect(first, job, updated);
}

Result<ProfileRunner::Outcome> ProfileRunner::Create(const std::vector<ProfileTarget>& group,
                                                     ProfileRunStats* stats) {
  std::string image = options_.ncu_image;
  for (const ProfileTarget& t : group)
    if (!t.image.empty()) image = t.image;
  if (image.empty()) return Outcome{"failed", "no ncu image: set kraken.io/profile-image or --ncu-image"};
  // A Job's own spec, else the first pod's: the pods of one owner share their template.
  const ProfileTarget* source = &group.front();
  for (const ProfileTarget& t : group)
    if (t.annotated.kind == "Job") source = &t;
  Result<std::string> body = ProfileJobJson(*source, image, options_);
  if (!body.ok()) return Outcome{"failed", body.status().message()};
  Status posted = client_.Post(JobsPath(source->workload.namespace_name), body.value());
  // 409: another pass (or controller replica) created it first; it runs once either way.
  if (!posted.ok() && posted.message().find("HTTP 409") == std::string::npos) return posted;
  if (posted.ok()) ++stats->created;
  return Outcome{"pending", ""};
}

Result<ProfileRunner::Outcome> ProfileRunner::Collect(const ProfileTarget& target, const std::string& job,
                                                      const std::string& updated) {
  const std::string ns = target.workload.namespace_name;
  KRAKEN_ASSIGN_OR_RETURN(std::string pods,
                          client_.Get(PodsPath(ns) + "?labelSelector=" + kProfileRunOfLabel + "%3D" + job));
  auto pod = FirstPodName(pods);
  if (!pod.ok()) return pod.status().WithContext("pods of profile Job " + job);
  if (pod->empty()) return Outcome{"failed", "profile Job " + job + " succeeded but its pod is gone"};
  const std::string log_path = PodsPath(ns) + "/" + *pod + "/log?limitBytes=" + std::to_string(kMaxProfileLogBytes);
  KRAKEN_ASSIGN_OR_RETURN(std::string log, client_.Get(log_path));
  if (static_cast<int64_t>(log.size()) >= kMaxProfileLogBytes)
    return Outcome{"failed", "log of pod " + *pod + " reaches " + std::to_string(kMaxProfileLogBytes) +
                                 " bytes: too large to be one ncu run's CSV (lower --ncu-launch-count)"};
  Result<NcuRunFacts> facts = importer_("log of pod " + ns + "/" + *pod, std::move(log));
  if (!facts.ok()) return Outcome{"failed", facts.status().message()};
  KRAKEN_RETURN_IF_ERROR(RecordNcuProfile(client_, target.workload, *facts, job, updated));
  return Outcome{"done", ""};
}

Status ProfileRunner::Mark(const std::vector<ProfileTarget>& group, const std::string& job, const Outcome& outcome) {
  AnnotationWriter writer(client_);
  std::map<std::string, std::string> desired = {{kProfileRunStatusKey, outcome.status}, {kProfileRunJobKey, job}};
  if (!outcome.reason.empty()) {
    // One line, bounded: an annotation is read by people in `kubectl describe`.
    std::string reason = outcome.reason.substr(0, 1000);
    for (char& c : reason)
      if (c == '\n' || c == '\r') c = ' ';
    desired[kProfileRunReasonKey] = reason;
  }
  for (const ProfileTarget& t : group) {
    Result<bool> patched = writer.Apply(t.annotated, desired);
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) return patched.status();
  }
  return Status::Ok();
}

std::string ProfileRunSummary(const ProfileRunStats& s) {
  return "; profile runs: " + std::to_string(s.workloads) + " workload(s), " + std::to_string(s.created) +
         " Job(s) created, " + std::to_string(s.pending) + " pending, " + std::to_string(s.running) + " running, " +
         std::to_string(s.done) + " done, " + std::to_string(s.failed) + " failed, " + std::to_string(s.finished) +
         " finished earlier";
}

}  // namespace kraken::k8s
