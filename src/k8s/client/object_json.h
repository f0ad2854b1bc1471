// The metadata of a Kubernetes object (Pod, Node, Job, a custom resource) as kraken reads
// it: one decoder for the controller's GETs, the agent's pod LIST and the scheduler
// extender's ExtenderArgs (object_json_read.h has its simdjson-level entry point).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::k8s {

struct ObjectRef {
  std::string api_version;     // "v1", "batch/v1", "kubeflow.org/v1"
  std::string kind;            // "Pod", "Node", "PyTorchJob"
  std::string namespace_name;  // "" for cluster-scoped kinds (Node)
  std::string name;
  bool operator==(const ObjectRef&) const = default;
};

// metadata.* as read; which annotations and labels are kept is the reader's choice
// (MetadataKeep in object_json_read.h).
struct ObjectMetadata {
  std::string name;
  std::string namespace_name;
  std::string uid;  // what /proc/<pid>/cgroup names (pod attribution on shared GPUs)
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> labels;
  // ownerReferences with controller: true (their namespace is the object's, which the
  // caller knows from the path it read).
  std::vector<ObjectRef> controllers;
};

struct ObjectMeta {
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> labels;
  std::vector<ObjectRef> controllers;  // ownerReferences with controller: true
  std::string node_name;               // spec.nodeName of a pod
};
// Reads metadata.annotations, metadata.labels, metadata.ownerReferences and spec.nodeName
// of one object; the owners get `namespace_name`.
Result<ObjectMeta> ParseObjectMeta(std::string_view json, const std::string& namespace_name);

}  // namespace kraken::k8s
