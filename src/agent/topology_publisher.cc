#include "agent/topology_publisher.h"

#include "k8s/client/topology_annotation.h"
#include "k8s/controller/annotation_writer.h"

namespace kraken::agent {

NodeGpuTopology TopologyWithHolders(NodeGpuTopology base, const std::vector<PublishedGpu>& gpus,
                                    const k8s::GpuPodMap* map) {
  for (TopologyGpu& g : base.gpus) {
    if (g.index < 0 || static_cast<size_t>(g.index) >= gpus.size()) continue;
    const PublishedGpu& gpu = gpus[static_cast<size_t>(g.index)];
    bool held = map != nullptr && (map->Find(gpu.uuid) != nullptr || map->shared_devices().count(gpu.uuid) > 0);
    // A GPU in MIG mode is handed out by slices, never whole.
    g.free = !held && !gpu.mig_enabled;
  }
  return base;
}

Result<bool> TopologyPublisher::Publish(const k8s::GpuPodMap* map) {
  std::string value = k8s::FormatTopologyAnnotation(TopologyWithHolders(base_, gpus_, map));
  std::lock_guard<std::mutex> lock(mutex_);
  if (value == last_) return false;
  k8s::AnnotationWriter writer(client_);
  KRAKEN_ASSIGN_OR_RETURN(bool patched, writer.Apply(k8s::ObjectRef{"v1", "Node", "", node_}, {{k8s::kGpuTopologyKey, value}}));
  last_ = value;
  return patched;
}

}  // namespace kraken::agent
