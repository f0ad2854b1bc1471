// The GPU figures of the PyTorch TensorBoard profiler plugin (tb_plugin) "Overview" page,
// reproduced with the plugin's own definitions so users can compare like with like:
//   steps         ProfilerStep CPU ranges, each stretched to cover the GPU work launched
//                 inside it (kernels, memcpy, memset whose runtime call lies wholly in the
//                 step): step i = [max(end of step i-1, CPU start), max(CPU end, end of
//                 that GPU work)]; the first step starts later only when GPU work launched
//                 before it is still running past its CPU start. Trailing steps that
//                 launched nothing are dropped, and so is the last step that did when it
//                 launched under 80 % of the previous step's GPU events (the profiler
//                 probably missed part of it).
//   window        first step start -> last step end; in practice first ProfilerStep CPU
//                 start -> max(last step CPU end, end of the last GPU op launched in a step)
//   GPU utilization        |union of kernels| within the window / window
//   Est. SM efficiency     sum_k min(blocks per SM_k, 1) * dur_k / window, where at each
//                          instant the sum over concurrent kernels is capped at 1
//   Est. achieved occupancy  sum_k occ%_k * dur_k / sum_k dur_k, durations clipped to the
//                          window (so kernels of zero duration weigh nothing)
// Only kernels count for these three (no memcpy/memset), as in the plugin, and only those
// of one device: the plugin shows one block per GPU; kraken reports the device with the
// most kernel time (the only one in a one-GPU-per-process trace).
#pragma once

#include <cstdint>
#include <optional>

#include "analysis/intervals.h"
#include "model/profile.h"

namespace kraken {

struct TbPluginOverview {
  Interval window;
  int32_t device = -1;  // the device the kernel figures are for
  int64_t steps = 0;
  TimeNs average_step_ns = 0;  // window / steps
  TimeNs kernel_union_ns = 0;  // |union of the device's kernels| within the window
  double gpu_utilization_pct = 0;
  std::optional<double> est_sm_efficiency_pct;       // needs "blocks per SM"
  std::optional<double> est_achieved_occupancy_pct;  // needs "est. achieved occupancy %"
};

// nullopt when the trace has no ProfilerStep annotations or no kernels.
std::optional<TbPluginOverview> ComputeTbPluginOverview(const Profile& profile);

}  // namespace kraken
