// The GPU figures of the PyTorch TensorBoard profiler plugin (tb_plugin) "Overview" page,
// reproduced with the plugin's own definitions so users can compare like with like:
//   window        first ProfilerStep CPU start -> max(last step CPU end, end of the last
//                 kernel whose launching runtime call lies inside a step)
//   GPU utilization        |union of kernels in the window| / window
//   Est. SM efficiency     sum_k min(blocks per SM_k, 1) * dur_k / window, where at each
//                          instant the sum over concurrent kernels is capped at 1
//   Est. achieved occupancy  sum_k occ%_k * dur_k / sum_k dur_k  (kernels with dur > 0)
// Only kernels count (no memcpy/memset), as in the plugin.
#pragma once

#include <optional>

#include "analysis/intervals.h"
#include "model/profile.h"

namespace kraken {

struct TbPluginOverview {
  Interval window;
  int64_t steps = 0;
  TimeNs average_step_ns = 0;  // window / steps
  double gpu_utilization_pct = 0;
  std::optional<double> est_sm_efficiency_pct;       // needs "blocks per SM"
  std::optional<double> est_achieved_occupancy_pct;  // needs "est. achieved occupancy %"
};

// nullopt when the trace has no ProfilerStep annotations or no kernels.
std::optional<TbPluginOverview> ComputeTbPluginOverview(const Profile& profile);

}  // namespace kraken
