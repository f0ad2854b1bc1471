// What bounds a GPU's work, from sampled GPM activity (SM or tensor active, DRAM active;
// NVML on Hopper and newer, or DCGM's profiling fields): the rule `kraken profile` prints
// and the agent's kraken_gpu_bound_info exports. Utilization alone cannot tell, so without
// GPM activity there is no verdict (docs/profile.md, docs/agent.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kraken {

// Activity (0..1) at or above which a unit counts as the busy one.
inline constexpr double kGpmBusyActivity = 0.5;

struct GpmBound {
  std::string bound;   // memory, compute, neither (latency- or launch-bound, or mostly idle)
  std::string reason;  // the medians it rests on
};

// `sm_or_tensor[i]` (the larger of SM and tensor activity) and `dram[i]` are one pass
// each; the verdict reads their medians. Nothing when there is no pass with both.
std::optional<GpmBound> BoundFromGpmActivity(const std::vector<double>& sm_or_tensor,
                                             const std::vector<double>& dram);

}  // namespace kraken
