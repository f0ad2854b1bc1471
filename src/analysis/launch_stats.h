// How kernels are launched: the delay between a launch call returning on the CPU and
// the kernel starting on the GPU, the CPU cost of the launch calls, and how much of the
// work comes in kernels too small to hide that cost.
#pragma once

#include <cstdint>

#include "analysis/distribution.h"
#include "model/profile.h"

namespace kraken {

struct LaunchStatsOptions {
  // Kernels shorter than this count as small (the launch overhead is a few µs).
  TimeNs small_kernel_ns = 10'000;
};

struct LaunchStats {
  int64_t kernels = 0;
  int64_t linked_kernels = 0;  // with a runtime call of the same correlation id
  // Kernel start - (launch call start + duration), clipped at 0 (HTA's launch delay).
  Distribution launch_delay_ns;
  // CPU duration of the launching runtime/driver calls of linked kernels.
  Distribution launch_call_ns;
  Distribution kernel_duration_ns;
  TimeNs small_kernel_threshold_ns = 0;
  int64_t small_kernels = 0;
  TimeNs small_kernel_time_ns = 0;
  TimeNs kernel_time_ns = 0;
  // Linked kernels that ran for less time than the CPU spent launching them: the GPU
  // cannot be kept busy by such kernels alone.
  int64_t kernels_shorter_than_launch = 0;

  double small_kernel_count_pct() const {
    return kernels > 0 ? 100.0 * static_cast<double>(small_kernels) / static_cast<double>(kernels) : 0;
  }
  double small_kernel_time_pct() const {
    return kernel_time_ns > 0 ? 100.0 * static_cast<double>(small_kernel_time_ns) / static_cast<double>(kernel_time_ns)
                              : 0;
  }
};

LaunchStats ComputeLaunchStats(const Profile& profile, const LaunchStatsOptions& options = {});

}  // namespace kraken
