#include "analysis/launch_stats.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace kraken {

LaunchStats ComputeLaunchStats(const Profile& profile, const LaunchStatsOptions& options) {
  LaunchStats stats;
  stats.small_kernel_threshold_ns = options.small_kernel_ns;
  std::unordered_map<int64_t, const RuntimeCall*> by_correlation;
  by_correlation.reserve(profile.runtime_calls.size());
  for (const RuntimeCall& call : profile.runtime_calls)
    if (call.correlation_id >= 0) by_correlation.emplace(call.correlation_id, &call);

  std::vector<double> delays, calls, durations;
  delays.reserve(profile.kernels.size());
  calls.reserve(profile.kernels.size());
  durations.reserve(profile.kernels.size());
  for (const Kernel& k : profile.kernels) {
    ++stats.kernels;
    stats.kernel_time_ns += k.duration_ns;
    durations.push_back(static_cast<double>(k.duration_ns));
    if (k.duration_ns < options.small_kernel_ns) {
      ++stats.small_kernels;
      stats.small_kernel_time_ns += k.duration_ns;
    }
    if (k.correlation_id < 0) continue;
    auto it = by_correlation.find(k.correlation_id);
    if (it == by_correlation.end()) continue;
    const RuntimeCall& call = *it->second;
    ++stats.linked_kernels;
    delays.push_back(static_cast<double>(std::max<TimeNs>(0, k.start_ns - call.end_ns())));
    calls.push_back(static_cast<double>(call.duration_ns));
    if (k.duration_ns < call.duration_ns) ++stats.kernels_shorter_than_launch;
  }
  stats.launch_delay_ns = Summarize(std::move(delays));
  stats.launch_call_ns = Summarize(std::move(calls));
  stats.kernel_duration_ns = Summarize(std::move(durations));
  return stats;
}

}  // namespace kraken
