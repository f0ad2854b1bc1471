// Compute-memory decoupling: how independent a workload's memory footprint is from its
// compute demand. Disaggregation pays when the two can be provisioned apart: memory
// that is held whatever the SMs do (or needed in a very different proportion from the
// compute) can come from a pool sized for memory, compute from one sized for compute.
//   imbalance    = |memory share - compute share| / max(both) of one GPU (static: the
//                  proportions differ); not measured when both shares are under 1%
//   independence = 1 - |Pearson r(memory(t), busy(t))| over the busy bins (over time);
//                  1 when either series is constant (memory held regardless of compute)
//   decoupling   = mean of the parts that could be measured
#pragma once

#include <cstdint>
#include <string>

#include "analysis/explanation.h"
#include "analysis/mig/gpu_need.h"
#include "model/profile.h"
#include "model/workload_demand.h"

namespace kraken::disagg {

inline constexpr double kMinShareForImbalance = 0.01;

struct Decoupling {
  bool imbalance_measured = false;
  double memory_share = 0;
  double compute_share = 0;
  double imbalance = 0;
  bool correlation_measured = false;
  int64_t points = 0;         // bins with both a busy and a memory value
  double correlation = 0;     // Pearson r; 0 when a series is constant
  bool memory_constant = false;
  bool busy_constant = false;
  double independence = 0;
  std::string memory_series;  // which series the footprint over time came from
  bool measured = false;
  double score = 0;
};

// Memory over time: the framework allocator's allocated bytes (a trace with
// profile_memory) or the sampler's framebuffer used (the demand's own GPU / instance /
// phase), held at its last value and read at each busy bin.
Decoupling AnalyzeDecoupling(const Profile& profile, const WorkloadDemand& demand, const GpuNeed& need);

Explanation ExplainDecoupling(const Decoupling& d);

}  // namespace kraken::disagg
