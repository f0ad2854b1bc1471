// How much of one whole GPU a workload needs: its compute (share of the device's SMs) and
// its memory (peak footprint). Both the MIG planner (which slice fits) and the
// disaggregation analysis (what a shared or pooled GPU must give it) size from this.
#pragma once

#include <string>

#include "analysis/explanation.h"
#include "model/workload_demand.h"

namespace kraken {

struct GpuNeed {
  // Compute: fraction of the whole GPU's SMs the workload keeps busy, 0..1.
  bool compute_measured = false;
  double compute_mean = 0;
  double compute_p95 = 0;
  double compute_max = 0;  // the largest burst
  std::string compute_basis;
  // Memory: peak device memory held.
  bool memory_measured = false;
  double memory_bytes = 0;
  double memory_share = 0;  // of the device's memory; 0 when the device is unknown
  std::string memory_basis;
  double device_memory_bytes = 0;
  int32_t device_sm_count = 0;
};

// Compute share, in order of preference:
//   1. sm_active (DCGM/GPM SM activity, or kraken's estimate from blocks per SM): the
//      fraction of SM cycles with a resident warp, which already weighs busy time by how
//      many SMs the kernels fill;
//   2. gpu_busy x sm_fill: busy fraction times the fraction of SMs a typical kernel's grid
//      can occupy;
//   3. gpu_busy alone: as if every kernel filled the GPU (an upper bound).
// The p95 is never taken below the mean (a mostly idle series has p95 = 0).
// Samples of a MIG instance are ratios of the instance: they are scaled by instance SMs /
// device SMs to a share of the whole GPU.
GpuNeed EstimateGpuNeed(const WorkloadDemand& demand);

Explanation ExplainGpuNeed(const GpuNeed& need);

}  // namespace kraken
