// The packing half of the extender's score: the pod's GPU request placed on each node by
// a policy of analysis/pack (the pooling issue's packing policies), given the node's GPUs
// and the shares its residents hold.
#pragma once

#include <string>
#include <vector>

#include "k8s/client/demand_annotation.h"
#include "k8s/extender/scheduler_extender.h"

namespace kraken::k8s {

// A node that passed the co-location filter, with what packing needs to know of it.
struct PackingNode {
  size_t decision = 0;  // index into the decisions
  std::string name;
  int gpus = 0;
  int replicas = 1;
  std::vector<DemandEntry> residents;  // each holds one share of GPU max(gpu, 0)
};

// Shares as GPU milli: a share is 1000 / replicas of its GPU; with replicas = 1 (or a pod
// asking for several GPUs) the pod takes whole GPUs. Builds one pack problem over the
// nodes (residents placed on their GPUs), scores the pod with `options.packing_policy`,
// min-max normalises the raw scores over these nodes to the 0..1 packing term (all equal:
// 1) and sets each decision's packing_term, score and the end of its reason.
void ScorePacking(const std::vector<PackingNode>& nodes, int64_t pod_gpus, const ExtenderOptions& options,
                  std::vector<NodeDecision>* decisions);

}  // namespace kraken::k8s
