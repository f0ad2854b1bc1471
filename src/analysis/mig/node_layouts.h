// A MIG plan as the GPU operator's mig-manager applies it: the plan's GPUs (sliced GPUs
// first, then the GPUs kept whole) dealt onto nodes of N GPUs each, and per node one
// named mig-parted configuration (nodes with the same layout share a name), which the
// node label nvidia.com/mig.config selects (docs/mig-planning.md).
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
  std::string config;            // the mig-parted configuration name
  std::vector<GpuLayout> gpus;   // by device index on the node
};

// `node_names` may be empty (node-0, node-1, ...) or name at least as many nodes as the
// plan needs; `gpus_per_node` >= 1.
Result<std::vector<NodeLayout>> LayoutNodes(const MigPlan& plan, int gpus_per_node,
                                            const std::vector<std::string>& node_names);

}  // namespace kraken::mig
