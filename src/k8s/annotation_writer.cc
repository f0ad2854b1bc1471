#include "k8s/annotation_writer.h"

#include <simdjson.h>

#include <algorithm>

#include "base/text.h"
#include "k8s/demand_annotation.h"
#include "k8s/node_labels.h"
#include "k8s/resident_list.h"

namespace kraken::k8s {
namespace {

Status JsonError(std::string_view what, simdjson::error_code e) {
  return InvalidInput("Kubernetes object: " + std::string(what) + ": " + simdjson::error_message(e));
}

Status ReadOwner(simdjson::ondemand::object owner, const std::string& namespace_name, ObjectMeta* meta) {
  ObjectRef ref;
  ref.namespace_name = namespace_name;
  bool controller = false;
  for (auto field : owner) {
    std::string_view key, text;
    if (auto e = field.unescaped_key().get(key)) return JsonError("ownerReferences key", e);
    std::string k(key);
    if (k == "controller") {
      if (auto e = field.value().get_bool().get(controller)) return JsonError("controller", e);
      continue;
    }
    if (k != "apiVersion" && k != "kind" && k != "name") continue;
    if (auto e = field.value().get_string().get(text)) return JsonError(k, e);
    (k == "apiVersion" ? ref.api_version : k == "kind" ? ref.kind : ref.name) = std::string(text);
  }
  if (controller && !ref.kind.empty() && !ref.name.empty()) meta->controllers.push_back(std::move(ref));
  return Status::Ok();
}

// metadata.annotations or metadata.labels: a map of strings.
Status ReadStringMap(simdjson::ondemand::value value, std::string_view what, std::map<std::string, std::string>* out) {
  simdjson::ondemand::object object;
  if (auto e = value.get_object().get(object)) return JsonError(what, e);
  for (auto entry : object) {
    std::string_view name, text;
    if (auto e = entry.unescaped_key().get(name)) return JsonError(what, e);
    std::string name_copy(name);
    if (auto e = entry.value().get_string().get(text)) return JsonError(std::string(what) + " value", e);
    (*out)[name_copy] = std::string(text);
  }
  return Status::Ok();
}

Status ReadMetadata(simdjson::ondemand::object metadata, const std::string& namespace_name, ObjectMeta* meta) {
  for (auto field : metadata) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("metadata key", e);
    if (key == "annotations" || key == "labels") {
      bool annotations = key == "annotations";
      simdjson::ondemand::value value;
      if (auto e = field.value().get(value)) return JsonError("metadata", e);
      KRAKEN_RETURN_IF_ERROR(ReadStringMap(value, annotations ? "annotations" : "labels",
                                           annotations ? &meta->annotations : &meta->labels));
    } else if (key == "ownerReferences") {
      simdjson::ondemand::array owners;
      if (auto e = field.value().get_array().get(owners)) return JsonError("ownerReferences", e);
      for (auto owner : owners) {
        simdjson::ondemand::object object;
        if (auto e = std::move(owner).get_object().get(object)) return JsonError("ownerReference", e);
        KRAKEN_RETURN_IF_ERROR(ReadOwner(object, namespace_name, meta));
      }
    }
  }
  return Status::Ok();
}

std::string Plural(std::string_view kind) { return ToLower(kind) + "s"; }

}  // namespace

std::string ObjectPath(const ObjectRef& ref) {
  bool core = ref.api_version == "v1";
  std::string path = core ? "/api/v1" : "/apis/" + ref.api_version;
  if (!ref.namespace_name.empty()) path += "/namespaces/" + ref.namespace_name;
  return path + "/" + Plural(ref.kind) + "/" + ref.name;
}

bool IsBuiltinKind(const ObjectRef& ref) {
  // Core and the k8s.io groups without a dot in the group name (apps/v1, batch/v1).
  size_t slash = ref.api_version.find('/');
  if (slash == std::string::npos) return true;
  std::string_view group = std::string_view(ref.api_version).substr(0, slash);
  return group.find('.') == std::string_view::npos || EndsWith(group, ".k8s.io");
}

bool IsAggregatedOwner(const ObjectRef& owner) {
  if (owner.kind == "Job") return StartsWith(owner.api_version, "batch/");
  if (owner.kind == "MPIJob" || owner.kind == "PyTorchJob") return StartsWith(owner.api_version, "kubeflow.org/");
  return false;
}

bool ProfilingDisabled(const std::map<std::string, std::string>& annotations) {
  std::optional<PodSetting> profiling = FindPodSetting(annotations, kProfilingKey);
  return profiling && ToLower(Trim(profiling->value)) == "disabled";
}

Result<ObjectMeta> ParseObjectMeta(std::string_view json, const std::string& namespace_name) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(padded).get(doc)) return JsonError("not JSON", e);
  simdjson::ondemand::object root;
  if (auto e = doc.get_object().get(root)) return JsonError("not an object", e);
  ObjectMeta meta;
  for (auto field : root) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return JsonError("key", e);
    if (key == "metadata") {
      simdjson::ondemand::object metadata;
      if (auto e = field.value().get_object().get(metadata)) return JsonError("metadata", e);
      KRAKEN_RETURN_IF_ERROR(ReadMetadata(metadata, namespace_name, &meta));
    } else if (key == "spec") {
      simdjson::ondemand::object spec;
      if (auto e = field.value().get_object().get(spec)) return JsonError("spec", e);
      for (auto s : spec) {
        std::string_view spec_key, node;
        if (auto e = s.unescaped_key().get(spec_key)) return JsonError("spec key", e);
        if (spec_key != "nodeName") continue;
        if (auto e = s.value().get_string().get(node)) return JsonError("nodeName", e);
        meta.node_name = std::string(node);
      }
    }
  }
  return meta;
}

Result<bool> AnnotationWriter::Apply(const ObjectRef& ref, const std::map<std::string, std::string>& desired,
                                     ObjectMeta* meta_out) {
  const std::string path = ObjectPath(ref);
  KRAKEN_ASSIGN_OR_RETURN(std::string body, client_.Get(path));
  KRAKEN_ASSIGN_OR_RETURN(ObjectMeta meta, ParseObjectMeta(body, ref.namespace_name));
  if (meta_out != nullptr) *meta_out = meta;
  // The opt-out is read from the object itself, just before the write, so a pod the user
  // marked disabled since the analysis is still left alone.
  if (ref.kind == "Pod" && ref.api_version == "v1" && ProfilingDisabled(meta.annotations)) return false;
  std::map<std::string, std::string> changed = ChangedAnnotations(meta.annotations, desired);
  if (changed.empty()) return false;
  KRAKEN_RETURN_IF_ERROR(
      client_.Patch(path, AnnotationPatchBody(changed), IsBuiltinKind(ref) ? kStrategicMergePatch : kJsonMergePatch));
  return true;
}

Result<bool> AnnotationWriter::ApplyNodeLabels(const std::string& node,
                                               const std::map<std::string, std::string>& desired) {
  const std::string path = ObjectPath({"v1", "Node", "", node});
  KRAKEN_ASSIGN_OR_RETURN(std::string body, client_.Get(path));
  KRAKEN_ASSIGN_OR_RETURN(ObjectMeta meta, ParseObjectMeta(body, ""));
  std::map<std::string, std::string> changed = ChangedAnnotations(meta.labels, desired);
  if (changed.empty()) return false;
  KRAKEN_RETURN_IF_ERROR(client_.Patch(path, LabelPatchBody(changed), kStrategicMergePatch));
  return true;
}

Status AnnotationWriter::AnnotatePods(const std::vector<PodResult>& pods, AnnotationStats* stats) {
  PassScope scope;
  for (const PodResult& pod : pods) scope.namespaces.insert(pod.namespace_name);
  return AnnotatePass(pods, scope, stats);
}

Status AnnotationWriter::AnnotatePass(const std::vector<PodResult>& pods, const PassScope& scope,
                                      AnnotationStats* stats) {
  std::map<std::string, std::vector<WorkloadAnnotations>> by_node;
  // Node -> kraken.io/resident-demand entries of the analysed pods on it. Every touched
  // node has a (possibly empty) list: empty means none of the pass's pods runs there.
  std::map<std::string, std::vector<std::string>> residents;
  for (const std::string& node : scope.inventory_nodes) residents[node];
  for (const auto& [node, labels] : scope.node_labels) residents[node];
  std::vector<std::pair<ObjectRef, std::vector<WorkloadAnnotations>>> by_owner;
  // A pod's own namespace is analysed whatever the caller said, so its fresh entry never
  // sits beside an old one of the same pod kept as another namespace's.
  std::set<std::string> analysed = scope.namespaces;
  for (const PodResult& pod : pods) analysed.insert(pod.namespace_name);
  auto count = [&](bool patched) {
    ++stats->objects_read;
    ++(patched ? stats->objects_patched : stats->objects_unchanged);
  };
  for (const PodResult& pod : pods) {
    ObjectMeta meta;
    Result<bool> patched = Apply({"v1", "Pod", pod.namespace_name, pod.pod}, Results(pod.annotations), &meta);
    if (!patched.ok() && patched.status().code() == StatusCode::kNotFound) {
      // In the analysed history, gone from the cluster: nothing to annotate, and no
      // longer a resident anywhere.
      ++stats->objects_read;
      ++stats->pods_missing;
      continue;
    }
    if (!patched.ok()) return patched.status();
    if (!meta.node_name.empty()) residents[meta.node_name];
    if (ProfilingDisabled(meta.annotations)) {
      ++stats->objects_read;
      ++stats->pods_opted_out;
      continue;
    }
    count(*patched);
    ++stats->pods_annotated;
    if (!meta.node_name.empty()) by_node[meta.node_name].push_back(pod.annotations);
    if (!meta.node_name.empty() && pod.annotations.demand && !pod.annotations.demand->empty())
      residents[meta.node_name].push_back(ResidentEntry(pod.namespace_name + "/" + pod.pod,
                                                        pod.annotations.gpu_index.value_or(-1), *pod.annotations.demand));
    for (const ObjectRef& owner : meta.controllers) {
      auto it = std::find_if(by_owner.begin(), by_owner.end(), [&](const auto& entry) { return entry.first == owner; });
      if (it == by_owner.end()) it = by_owner.insert(by_owner.end(), {owner, {}});
      it->second.push_back(pod.annotations);
    }
  }
  for (const auto& [node, entries] : residents) {
    const std::string path = ObjectPath({"v1", "Node", "", node});
    Result<std::string> body = client_.Get(path);
    ++stats->objects_read;
    if (!body.ok() && body.status().code() == StatusCode::kNotFound) {
      ++stats->nodes_missing;
      continue;
    }
    if (!body.ok()) return body.status();
    KRAKEN_ASSIGN_OR_RETURN(ObjectMeta meta, ParseObjectMeta(*body, ""));
    std::map<std::string, std::string> desired;
    if (auto it = by_node.find(node); it != by_node.end()) desired = Results(AggregateJob(it->second));
    auto current = meta.annotations.find(kResidentDemandKey);
    ResidentListUpdate update = UpdateResidentList(
        current == meta.annotations.end() ? std::string_view() : std::string_view(current->second), entries,
        analysed);
    desired[kResidentDemandKey] = update.value;
    stats->resident_entries_stale += update.dropped_stale;
    stats->resident_entries_unparsable += update.dropped_unparsable;
    stats->resident_entries_over_cap += update.dropped_over_cap;
    bool patched = false;
    if (std::map<std::string, std::string> changed = ChangedAnnotations(meta.annotations, desired); !changed.empty()) {
      KRAKEN_RETURN_IF_ERROR(client_.Patch(path, AnnotationPatchBody(changed), kStrategicMergePatch));
      patched = true;
    }
    if (auto labels = scope.node_labels.find(node); labels != scope.node_labels.end()) {
      ++stats->nodes_labelled;
      if (std::map<std::string, std::string> changed = ChangedAnnotations(meta.labels, labels->second);
          !changed.empty()) {
        KRAKEN_RETURN_IF_ERROR(client_.Patch(path, LabelPatchBody(changed), kStrategicMergePatch));
        patched = true;
      }
    }
    ++(patched ? stats->objects_patched : stats->objects_unchanged);
  }
  for (const auto& [owner, members] : by_owner) {
    if (members.size() < 2 || !IsAggregatedOwner(owner)) continue;
    KRAKEN_ASSIGN_OR_RETURN(bool patched, Apply(owner, Results(AggregateJob(members))));
    count(patched);
  }
  return Status::Ok();
}

Status AnnotationWriter::LabelNodes(const std::map<std::string, std::map<std::string, std::string>>& labels_by_node,
                                    AnnotationStats* stats) {
  for (const auto& [node, labels] : labels_by_node) {
    Result<bool> patched = ApplyNodeLabels(node, labels);
    ++stats->objects_read;
    if (!patched.ok() && patched.status().code() == StatusCode::kNotFound) {
      ++stats->nodes_missing;
      continue;
    }
    if (!patched.ok()) return patched.status();
    ++(*patched ? stats->objects_patched : stats->objects_unchanged);
    ++stats->nodes_labelled;
  }
  return Status::Ok();
}

}  // namespace kraken::k8s
