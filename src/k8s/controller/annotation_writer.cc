#include "k8s/controller/annotation_writer.h"

#include <algorithm>

#include "base/text.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/controller/node_labels.h"
#include "k8s/controller/resident_list.h"

namespace kraken::k8s {
namespace {

std::string Plural(std::string_view kind) { return ToLower(kind) + "s"; }

// What a pass's pod walk gathers for the node and owner writes after it.
struct PassGathered {
  std::map<std::string, std::vector<WorkloadAnnotations>> by_node;
  // Node -> kraken.io/resident-demand entries of the analysed pods on it. Every touched
  // node has a (possibly empty) list: empty means none of the pass's pods runs there.
  std::map<std::string, std::vector<std::string>> residents;
  std::vector<std::pair<ObjectRef, std::vector<WorkloadAnnotations>>> by_owner;
};

void CountReadObject(bool patched, AnnotationStats* stats) {
  ++stats->objects_read;
  ++(patched ? stats->objects_patched : stats->objects_unchanged);
}

// An annotated pod's results go to its node (aggregate and resident entry) and its owners.
void GatherAnnotatedPod(const PodResult& pod, const ObjectMeta& meta, PassGathered& gathered,
                        AnnotationStats* stats) {
  ++stats->pods_annotated;
  stats->pod_workloads.emplace_back(pod.namespace_name + "/" + pod.pod,
                                    meta.controllers.empty() ? ObjectRef{"v1", "Pod", pod.namespace_name, pod.pod}
                                                             : meta.controllers[0]);
  if (!meta.node_name.empty()) gathered.by_node[meta.node_name].push_back(pod.annotations);
  if (!meta.node_name.empty() && pod.annotations.demand && !pod.annotations.demand->empty())
    gathered.residents[meta.node_name].push_back(ResidentEntry(
        pod.namespace_name + "/" + pod.pod, pod.annotations.gpu_index.value_or(-1), *pod.annotations.demand));
  std::vector<std::pair<ObjectRef, std::vector<WorkloadAnnotations>>>& by_owner = gathered.by_owner;
  for (const ObjectRef& owner : meta.controllers) {
    auto it = std::find_if(by_owner.begin(), by_owner.end(), [&](const auto& entry) { return entry.first == owner; });
    if (it == by_owner.end()) it = by_owner.insert(by_owner.end(), {owner, {}});
    it->second.push_back(pod.annotations);
  }
}

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
  PassGathered gathered;
  for (const std::string& node : scope.inventory_nodes) gathered.residents[node];
  for (const auto& [node, labels] : scope.node_labels) gathered.residents[node];
  // A pod's own namespace is analysed whatever the caller said, so its fresh entry never
  // sits beside an old one of the same pod kept as another namespace's.
  std::set<std::string> analysed = scope.namespaces;
  for (const PodResult& pod : pods) analysed.insert(pod.namespace_name);
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
    if (!meta.node_name.empty()) gathered.residents[meta.node_name];
    if (ProfilingDisabled(meta.annotations)) {
      ++stats->objects_read;
      ++stats->pods_opted_out;
      continue;
    }
    CountReadObject(*patched, stats);
    GatherAnnotatedPod(pod, meta, gathered, stats);
  }
  for (const auto& [node, entries] : gathered.residents) {
    auto pods_on_node = gathered.by_node.find(node);
    KRAKEN_RETURN_IF_ERROR(
        AnnotateNode(node, pods_on_node == gathered.by_node.end() ? nullptr : &pods_on_node->second, entries,
                     analysed, scope, stats));
  }
  for (const auto& [owner, members] : gathered.by_owner) {
    if (members.size() < 2 || !IsAggregatedOwner(owner)) continue;
    KRAKEN_ASSIGN_OR_RETURN(bool patched, Apply(owner, Results(AggregateJob(members))));
    CountReadObject(patched, stats);
  }
  return Status::Ok();
}

Status AnnotationWriter::AnnotateNode(const std::string& node, const std::vector<WorkloadAnnotations>* pods_on_node,
                                      const std::vector<std::string>& resident_entries,
                                      const std::set<std::string>& analysed, const PassScope& scope,
                                      AnnotationStats* stats) {
  const std::string path = ObjectPath({"v1", "Node", "", node});
  Result<std::string> body = client_.Get(path);
  ++stats->objects_read;
  if (!body.ok() && body.status().code() == StatusCode::kNotFound) {
    ++stats->nodes_missing;
    return Status::Ok();
  }
  if (!body.ok()) return body.status();
  KRAKEN_ASSIGN_OR_RETURN(ObjectMeta meta, ParseObjectMeta(*body, ""));
  std::map<std::string, std::string> desired;
  if (pods_on_node != nullptr) desired = Results(AggregateJob(*pods_on_node));
  auto current = meta.annotations.find(kResidentDemandKey);
  ResidentListUpdate update = UpdateResidentList(
      current == meta.annotations.end() ? std::string_view() : std::string_view(current->second), resident_entries,
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
