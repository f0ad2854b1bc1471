// Which free GPUs of a node a multi-GPU pod should get: every set of the size asked for
// is ranked by (1) the bandwidth of its slowest pair (the bottleneck of a ring
// all-reduce), (2) the NUMA nodes it spans (fewer: the pod's CPUs, which the kubelet's
// topology manager keeps on one NUMA node, are local to all of its GPUs), (3) the summed
// distance of its pairs' paths (NV 0, PIX 1, PXB 2, PHB 3, NODE 4, SYS or unknown 5: PCIe
// peers under one switch do not cross the CPU's root complex), (4) its pairs whose GPUs
// share a PCIe switch (fewer: with NVLink between them, they would still share the
// switch's uplink for host traffic), (5) its summed pair bandwidth, (6) the lowest GPU
// indices. The topology-blind choice
// is the lowest-indexed free GPUs, what an allocator that ignores the wiring hands out.
#pragma once

#include <string>
#include <vector>

#include "model/gpu_topology.h"

namespace kraken::topology {

struct GpuSetChoice {
  bool found = false;            // enough free GPUs
  std::vector<int> gpus;         // GPU indices, ascending
  double bottleneck_gbps = 0;    // slowest pair, one direction (a single GPU: 0)
  double total_gbps = 0;         // summed over the set's pairs
  int numa_nodes = 0;            // distinct known NUMA nodes
  int path_distance = 0;         // summed over pairs: NV 0, PIX 1, PXB 2, PHB 3, NODE 4, SYS 5
  int shared_switch_pairs = 0;   // pairs whose PCIe path is PIX or PXB
  bool all_nvlink = false;       // every pair joined by NVLink
};

// Scores one given set (indices into topology.gpus by GpuPlacement index).
GpuSetChoice EvaluateGpuSet(const NodeGpuTopology& topology, const std::vector<int>& gpus);

// The best set of `count` free GPUs (every combination up to kMaxExhaustiveSets, else a
// greedy growth from at most 8 seeds spread over the free GPUs).
GpuSetChoice BestGpuSet(const NodeGpuTopology& topology, int count);
inline constexpr long kMaxExhaustiveSets = 20000;

// The lowest-indexed `count` free GPUs.
GpuSetChoice BlindGpuSet(const NodeGpuTopology& topology, int count);

// "0,1,2,3"
std::string FormatGpuSet(const std::vector<int>& gpus);

}  // namespace kraken::topology
