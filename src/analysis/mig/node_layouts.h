// A MIG plan as the GPU operator's mig-manager applies it: the plan's GPUs (sliced GPUs
// first, then the GPUs kept whole) dealt onto nodes of N GPUs each, and per node one
// named mig-parted configuration, which the node label nvidia.com/mig.config selects
// (docs/mig-planning.md). The name is the node's MIG instance totals as MigLayoutName
// writes them ("1g.20gb-x2.1g.10gb-x3"), the same text the controller writes as that
// label, so a rebalancing label always names a configuration of the file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/mig/mig_plan.h"

namespace kraken::mig {

struct GpuLayout {
  bool mig_enabled = false;
  std::map<std::string, int> devices;  // MIG profile name -> count (mig_enabled only)
  bool operator==(const GpuLayout& o) const { return mig_enabled == o.mig_enabled && devices == o.devices; }
};

struct NodeLayout {
  std::string node;
  std::string config;            // the mig-parted configuration name (see LayoutNodes)
  std::vector<GpuLayout> gpus;   // by device index on the node
};

// MIG profile -> instances over all of a node's GPUs.
std::map<std::string, int> NodeInstanceTotals(const std::vector<GpuLayout>& gpus);

// Nodes with the same per-GPU layouts share a configuration; a node whose totals equal an
// earlier node's but whose GPUs are sliced differently gets the name with a "-v2", "-v3"
// suffix, in node order. `node_names` may be empty (node-0, node-1, ...) or name at least as many nodes as the
// plan needs; `gpus_per_node` >= 1.
Result<std::vector<NodeLayout>> LayoutNodes(const MigPlan& plan, int gpus_per_node,
                                            const std::vector<std::string>& node_names);

}  // namespace kraken::mig
