// The MIG instances each node's measured demand asks for, for the controller's MIG
// rebalancing (analysis/mig/mig_rebalance.h): per pod on the node (PodGpuUse::node, the
// DCGM Hostname), the slice the pooling plan gives it (kMigSlice), or the slice it already
// runs in when the plan keeps it there. Pods the plan keeps whole or shares ask for none.
// Node -> profile -> count; nodes without any are absent. Each pod is counted on the node
// it runs on now (the plan may group pods of several nodes onto one GPU; the layout of a
// node is what its own pods would need).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/pooling/pod_pooling.h"

namespace kraken::pooling {

std::map<std::string, std::map<std::string, int>> MigInstancesByNode(const std::vector<PodGpuUse>& uses,
                                                                     const PoolingReport& report);

// The same per use: the MIG profile each use of `uses` asks for ("" none), by index.
std::vector<std::string> MigProfileOfEachUse(const std::vector<PodGpuUse>& uses, const PoolingReport& report);

}  // namespace kraken::pooling
