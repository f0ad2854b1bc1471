// Writes kraken's results as annotations onto pods, their nodes and the jobs that own
// them, through the API server, only where a value changed. Built-in kinds get a
// strategic-merge patch; custom resources (MPIJob, PyTorchJob) a JSON merge patch, since
// the API server answers 415 to a strategic-merge patch of a custom resource.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "k8s/annotations.h"
#include "k8s/kube_client.h"

namespace kraken::k8s {

struct ObjectRef {
  std::string api_version;     // "v1", "batch/v1", "kubeflow.org/v1"
  std::string kind;            // "Pod", "Node", "PyTorchJob"
  std::string namespace_name;  // "" for cluster-scoped kinds (Node)
  std::string name;
  bool operator==(const ObjectRef&) const = default;
};

// The REST path: /api/v1/namespaces/NS/pods/NAME, /api/v1/nodes/NAME,
// /apis/GROUP/VERSION/namespaces/NS/PLURAL/NAME (plural = lowercased kind + "s").
std::string ObjectPath(const ObjectRef& ref);
// Pods, nodes, jobs and the other kinds of the core API groups.
bool IsBuiltinKind(const ObjectRef& ref);

struct ObjectMeta {
  std::map<std::string, std::string> annotations;
  std::vector<ObjectRef> controllers;  // ownerReferences with controller: true
  std::string node_name;               // spec.nodeName of a pod
};
// Reads metadata.annotations, metadata.ownerReferences and spec.nodeName of an object.
Result<ObjectMeta> ParseObjectMeta(std::string_view json, const std::string& namespace_name);

// One analysed pod.
struct PodResult {
  std::string namespace_name;
  std::string pod;
  WorkloadAnnotations annotations;
};

struct AnnotationStats {
  int objects_read = 0;
  int objects_patched = 0;
  int objects_unchanged = 0;
};

class AnnotationWriter {
 public:
  explicit AnnotationWriter(const KubeClient& client) : client_(client) {}

  // GETs the object and PATCHes the annotations of `desired` that differ. Returns true
  // when it patched.
  Result<bool> Apply(const ObjectRef& ref, const std::map<std::string, std::string>& desired,
                     ObjectMeta* meta = nullptr);

  // Annotates each pod; its node with the aggregate of the pods on it; and each owning
  // job that runs several pods (MPIJob, PyTorchJob, Job, ...) with the aggregate of its
  // pods. A single-pod owner (a Deployment's ReplicaSet) is left alone.
  Status AnnotatePods(const std::vector<PodResult>& pods, AnnotationStats* stats);

 private:
  const KubeClient& client_;
};

}  // namespace kraken::k8s
