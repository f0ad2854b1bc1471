// Writes kraken's results as annotations onto pods, their nodes and the jobs that own
// them, and GPU labels onto nodes, through the API server, only where a value changed.
// A pod annotated kraken.io/profiling: disabled is left alone. Built-in kinds get a
// strategic-merge patch; custom resources (MPIJob, PyTorchJob) a JSON merge patch, since
// the API server answers 415 to a strategic-merge patch of a custom resource.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "k8s/client/annotations.h"
#include "k8s/client/kube_client.h"
#include "k8s/client/object_json.h"

namespace kraken::k8s {

// The REST path: /api/v1/namespaces/NS/pods/NAME, /api/v1/nodes/NAME,
// /apis/GROUP/VERSION/namespaces/NS/PLURAL/NAME (plural = lowercased kind + "s").
std::string ObjectPath(const ObjectRef& ref);
// Pods, nodes, jobs and the other kinds of the core API groups.
bool IsBuiltinKind(const ObjectRef& ref);

// One analysed pod.
struct PodResult {
  std::string namespace_name;
  std::string pod;
  WorkloadAnnotations annotations;
};

// The owners that get a job aggregate: batch Jobs and the Kubeflow MPIJob and
// PyTorchJob. Exactly the kinds the controller's RBAC may patch (deploy/), so a pod owned
// by anything else (StatefulSet, ReplicaSet, ...) never leads to a forbidden write.
bool IsAggregatedOwner(const ObjectRef& owner);

// True when the pod's kraken.io/profiling annotation (or the KRAKEN design's
// kraken.keti.ai/profiling) says "disabled" (any case, spaces trimmed). Any other value, or
// none, means enabled: profiling is opt-out.
bool ProfilingDisabled(const std::map<std::string, std::string>& annotations);

struct AnnotationStats {
  int objects_read = 0;  // = patched + unchanged + pods_opted_out + pods_missing + nodes_missing
  int objects_patched = 0;
  int objects_unchanged = 0;
  int pods_annotated = 0;  // pods read and left with kraken's current values
  int pods_opted_out = 0;  // kraken.io/profiling: disabled: read, never patched
  int nodes_labelled = 0;  // nodes whose GPU labels were read (patched or unchanged)
  int nodes_missing = 0;   // a DCGM Hostname that names no Node object (404): skipped
  // A pod of the analysed history that the API server no longer has (404): skipped, so
  // its entries leave the resident lists of the nodes the pass touches.
  int pods_missing = 0;
  // kraken.io/resident-demand entries (k8s/controller/resident_list.h), summed over the nodes touched.
  int resident_entries_stale = 0;       // of analysed namespaces, pod no longer on the node: dropped
  int resident_entries_unparsable = 0;  // of analysed namespaces, refused by the v1 parser: dropped
  int resident_entries_over_cap = 0;    // beyond the 16 busiest: dropped
  // Each annotated pod ("namespace/name") and its workload: its controller owner, else the
  // pod itself (for the GpuWorkloadProfile objects, k8s/controller/workload_profile.h).
  std::vector<std::pair<std::string, ObjectRef>> pod_workloads;
};

// What one pass looked at, which decides the nodes it touches and the resident entries
// it owns (docs/k8s-controller.md, "Controller").
struct PassScope {
  // The analysed namespaces: their entries on a touched node are rewritten from the pass's
  // pods; the entries of any other namespace are kept as they are.
  std::set<std::string> namespaces;
  // The nodes of the pass's GPU inventory (promql/node_gpus.h). Touched even when no
  // analysed pod runs there, so the list of a node whose GPU pods all left becomes
  // `none`; a name the API server does not know (404) is counted in nodes_missing.
  std::set<std::string> inventory_nodes;
  // Labels to write on nodes (LabelNodes' input); a node named here is touched too.
  std::map<std::string, std::map<std::string, std::string>> node_labels;
};

class AnnotationWriter {
 public:
  // `mirror_prefixes`: the results (kraken.io/workload-type, ...) are also written under
  // each of these (WithPrefixes: ai.centaurus.io/workload-type, ...); bookkeeping such as
  // kraken.io/resident-demand and the node labels stay kraken's alone.
  explicit AnnotationWriter(const KubeClient& client, std::vector<std::string> mirror_prefixes = {})
      : client_(client), mirror_prefixes_(std::move(mirror_prefixes)) {}

  // GETs the object and PATCHes the annotations of `desired` that differ. Returns true
  // when it patched.
  Result<bool> Apply(const ObjectRef& ref, const std::map<std::string, std::string>& desired,
                     ObjectMeta* meta = nullptr);

  // GETs the node and PATCHes the labels of `desired` that differ, as a strategic-merge
  // patch {"metadata":{"labels":{...}}}. Returns true when it patched.
  Result<bool> ApplyNodeLabels(const std::string& node, const std::map<std::string, std::string>& desired);

  // One pass: annotates each pod; each touched node (the nodes of the analysed pods, the
  // inventory nodes, the labelled nodes; one GET each) with the aggregate of its analysed
  // pods (when it has some), its kraken.io/resident-demand (UpdateResidentList: the
  // analysed pods now on it with a demand vector + the entries of other namespaces) and
  // its labels; and each owning job that runs several pods (MPIJob, PyTorchJob, batch
  // Job) with the aggregate of its pods (IsAggregatedOwner kinds only). A pod annotated
  // kraken.io/profiling: disabled is read but never patched, and its results reach
  // neither its node nor its job (its node is still touched, so an entry it had leaves).
  // A pod or node the API server does not have (404) is counted and skipped. Annotations
  // and labels go in separate patches, each of the changed keys only.
  Status AnnotatePass(const std::vector<PodResult>& pods, const PassScope& scope, AnnotationStats* stats);
  // AnnotatePass with the pods' own namespaces as the analysed ones, no inventory, no labels.
  Status AnnotatePods(const std::vector<PodResult>& pods, AnnotationStats* stats);

  // Labels each node (name -> labels); the labels alone (AnnotatePass does the same with
  // PassScope::node_labels, sharing the node's GET with its annotations). A node the API server does not know (404: the
  // exporter's Hostname is not the node name) is counted in nodes_missing and skipped.
  Status LabelNodes(const std::map<std::string, std::map<std::string, std::string>>& labels_by_node,
                    AnnotationStats* stats);

 private:
  std::map<std::string, std::string> Results(const WorkloadAnnotations& a) const {
    return WithPrefixes(ToAnnotations(a), mirror_prefixes_);
  }

  // AnnotatePass's write of one touched node: the aggregate of `pods_on_node` (null: none
  // of the pass's pods runs there), the resident list and the scope's labels, one GET.
  Status AnnotateNode(const std::string& node, const std::vector<WorkloadAnnotations>* pods_on_node,
                      const std::vector<std::string>& resident_entries, const std::set<std::string>& analysed,
                      const PassScope& scope, AnnotationStats* stats);

  const KubeClient& client_;
  std::vector<std::string> mirror_prefixes_;
};

}  // namespace kraken::k8s
