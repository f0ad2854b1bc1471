// Publishes this node's GPU topology as the kraken.io/gpu-topology annotation on its Node
// (k8s/client/topology_annotation.h), for the scheduler extender's topology-aware
// placement (docs/topology.md). The wiring comes from NVML once; which GPUs are free
// comes from each pod-resources refresh (a GPU the kubelet gave to a container, shared
// between containers, or in MIG mode is "used"). The Node is patched only when the value
// changes, from the refresher thread, never the sampler's.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "k8s/attribution/pod_resources/gpu_pod_map.h"
#include "k8s/client/kube_client.h"
#include "model/gpu_topology.h"

namespace kraken::agent {

struct PublishedGpu {
  std::string uuid;  // "GPU-..."
  bool mig_enabled = false;
};

// `base` with each GPU's free flag from `map` (null: no kubelet answer, all free).
NodeGpuTopology TopologyWithHolders(NodeGpuTopology base, const std::vector<PublishedGpu>& gpus,
                                    const k8s::GpuPodMap* map);

class TopologyPublisher {
 public:
  TopologyPublisher(const k8s::KubeClient& client, std::string node, NodeGpuTopology base, std::vector<PublishedGpu> gpus)
      : client_(client), node_(std::move(node)), base_(std::move(base)), gpus_(std::move(gpus)) {}

  // Writes the annotation when it differs from what this publisher last wrote (the first
  // call GETs the node and patches only if the node's value differs). Returns true when
  // it patched.
  Result<bool> Publish(const k8s::GpuPodMap* map);

 private:
  const k8s::KubeClient& client_;
  std::string node_;
  NodeGpuTopology base_;
  std::vector<PublishedGpu> gpus_;
  std::mutex mutex_;
  std::string last_;  // the value last known on the node
};

}  // namespace kraken::agent
