// Topology-aware placement in the extender (docs/topology.md). For a pod that asks for
// two or more GPUs, each node that publishes kraken.io/gpu-topology gets the best set of
// its free GPUs (analysis/topology/gpu_set.h) and a topology term, the bottleneck GB/s of
// that set over the best bottleneck of any node in the request; the node's score becomes
// (1 - w) x score + w x 100 x term (w: ExtenderOptions::topology_weight); nodes without
// the annotation get the term 0.5 (when no node of the request has it, scores are left
// as they are). A pod annotated kraken.io/topology: nvlink-required
// fails on a node without NVLink, without the annotation, or without a free set of the
// size it asks for whose every pair is joined by NVLink.
#pragma once

#include <vector>

#include "k8s/extender/scheduler_extender.h"

namespace kraken::k8s {

// Applies the topology stage to `decisions` (one per request.nodes, same order).
void ApplyTopology(const ExtenderRequest& request, const ExtenderOptions& options, std::vector<NodeDecision>* decisions);

}  // namespace kraken::k8s
