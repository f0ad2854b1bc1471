#include "analysis/tb_plugin_overview.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace kraken {
namespace {

constexpr TimeNs kMaxTime = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

// GPU work (kernels, memcpy, memset) launched by the runtime calls of one step.
struct StepDeviceWork {
  TimeNs min_start_ns = kMaxTime;
  TimeNs max_end_ns = kMinTime;
  int64_t count = 0;
};

// Maps correlation ids to the step whose CPU range wholly contains the runtime call.
class LaunchStepIndex {
 public:
  LaunchStepIndex(const Profile& profile, const std::vector<Interval>& steps) {
    step_of_correlation_.reserve(profile.runtime_calls.size());
    for (const RuntimeCall& call : profile.runtime_calls) {
      if (call.correlation_id < 0) continue;
      auto it = std::upper_bound(steps.begin(), steps.end(), call.start_ns,
                                 [](TimeNs t, const Interval& s) { return t < s.start_ns; });
      if (it == steps.begin()) continue;
      --it;
      if (call.end_ns() > it->end_ns) continue;  // runs past the step's end: in no step
      step_of_correlation_.emplace_back(call.correlation_id, static_cast<int64_t>(it - steps.begin()));
    }
    std::sort(step_of_correlation_.begin(), step_of_correlation_.end());
  }

  int64_t StepOf(int64_t correlation_id) const {
    if (correlation_id < 0) return -1;
    auto it = std::lower_bound(step_of_correlation_.begin(), step_of_correlation_.end(),
                               std::pair<int64_t, int64_t>(correlation_id, -1));
    return it != step_of_correlation_.end() && it->first == correlation_id ? it->second : -1;
  }

 private:
  std::vector<std::pair<int64_t, int64_t>> step_of_correlation_;
};

// The plugin's step spans stretched over the GPU work they launched (see the header).
std::vector<Interval> StretchStepsOverGpuWork(const Profile& profile, std::vector<Interval> steps) {
  LaunchStepIndex index(profile, steps);
  std::vector<StepDeviceWork> work(steps.size());
  bool any_matched = false;
  auto add = [&](TimeNs start, TimeNs end, int64_t correlation_id) {
    int64_t step = index.StepOf(correlation_id);
    if (step < 0) return;
    work[step].min_start_ns = std::min(work[step].min_start_ns, start);
    work[step].max_end_ns = std::max(work[step].max_end_ns, end);
    ++work[step].count;
    any_matched = true;
  };
  for (const Kernel& k : profile.kernels) add(k.start_ns, k.end_ns(), k.correlation_id);
  for (const MemoryOp& m : profile.memory_ops) add(m.start_ns, m.end_ns(), m.correlation_id);
  if (!any_matched) return steps;  // no GPU work in any step: CPU ranges as they are

  // GPU work launched before the first step and still running when its own GPU work
  // starts pushes the first step's start back to that work's end.
  TimeNs previous_end = steps[0].start_ns;
  if (work[0].count > 0) {
    auto consider = [&](TimeNs end, int64_t correlation_id) {
      if (index.StepOf(correlation_id) < 0 && end < work[0].min_start_ns) previous_end = std::max(previous_end, end);
    };
    for (const Kernel& k : profile.kernels) consider(k.end_ns(), k.correlation_id);
    for (const MemoryOp& m : profile.memory_ops) consider(m.end_ns(), m.correlation_id);
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    TimeNs start = std::max(previous_end, steps[i].start_ns);
    TimeNs end = steps[i].end_ns;
    if (work[i].count > 0) end = std::max(end, work[i].max_end_ns);
    end = std::max(end, start);
    steps[i] = {start, end};
    previous_end = end;
  }

  // Drop trailing steps that launched nothing, and the last one that did when it launched
  // clearly less than the one before (a step the profiler cut short).
  size_t last = steps.size() - 1;
  while (work[last].count == 0) --last;  // any_matched: stops at a step with work
  size_t keep = last + 1;
  if (steps.size() > 1 && last > 0 && static_cast<double>(work[last - 1].count) * 0.8 > work[last].count) keep = last;
  if (steps.size() > 1) steps.resize(keep);
  return steps;
}

int32_t DeviceWithMostKernelTime(const Profile& profile) {
  std::vector<std::pair<int32_t, TimeNs>> time_by_device;  // a handful of devices at most
  for (const Kernel& k : profile.kernels) {
    auto it = std::find_if(time_by_device.begin(), time_by_device.end(),
                           [&](const auto& entry) { return entry.first == k.device; });
    if (it == time_by_device.end()) it = time_by_device.insert(time_by_device.end(), {k.device, 0});
    it->second += std::max<TimeNs>(k.duration_ns, 0);
  }
  auto best = std::max_element(time_by_device.begin(), time_by_device.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  return best->first;
}

TimeNs OverlapLength(TimeNs start, TimeNs end, const Interval& window) {
  TimeNs from = std::max(start, window.start_ns);
  TimeNs to = std::min(end, window.end_ns);
  return to > from ? to - from : 0;
}

// Sum over time of min(sum of blocks per SM of the running kernels, 1), within `window`,
// as a fraction of the window; nullopt when no kernel with blocks per SM runs in it.
std::optional<double> EstimatedSmEfficiency(const std::vector<const Kernel*>& kernels, const Interval& window) {
  struct Endpoint {
    TimeNs time_ns;
    bool is_end;  // false sorts first: a kernel starting as another ends is concurrent
    double blocks_per_sm;
  };
  std::vector<Endpoint> endpoints;
  endpoints.reserve(2 * kernels.size());
  for (const Kernel* k : kernels) {
    if (!(k->blocks_per_sm > 0)) continue;  // absent (-1) or not positive: the plugin skips it
    endpoints.push_back({k->start_ns, false, k->blocks_per_sm});
    endpoints.push_back({k->end_ns(), true, k->blocks_per_sm});
  }
  std::sort(endpoints.begin(), endpoints.end(), [](const Endpoint& a, const Endpoint& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.is_end < b.is_end;
  });
  double running = 0, weighted_ns = 0;
  int64_t active = 0;
  bool any_in_window = false;
  TimeNs last = endpoints.empty() ? 0 : endpoints.front().time_ns;
  for (const Endpoint& point : endpoints) {
    if (active > 0 && point.time_ns > last) {
      TimeNs length = OverlapLength(last, point.time_ns, window);
      if (length > 0) {
        weighted_ns += std::min(running, 1.0) * static_cast<double>(length);
        any_in_window = true;
      }
    }
    last = point.time_ns;
    if (point.is_end) {
      running -= point.blocks_per_sm;
      // Reset exactly when nothing runs, so rounding of the running sum cannot linger.
      if (--active == 0) running = 0;
    } else {
      running += point.blocks_per_sm;
      ++active;
    }
  }
  if (!any_in_window) return std::nullopt;
  return weighted_ns / static_cast<double>(window.length());
}

}  // namespace

std::optional<TbPluginOverview> ComputeTbPluginOverview(const Profile& profile) {
  if (profile.steps.empty() || profile.kernels.empty() || !profile.metadata.kernel_timestamps_valid) {
    return std::nullopt;
  }
  std::vector<Interval> steps;
  steps.reserve(profile.steps.size());
  for (const StepAnnotation& s : profile.steps) steps.push_back({s.start_ns, s.end_ns()});
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  steps = StretchStepsOverGpuWork(profile, std::move(steps));

  TbPluginOverview overview;
  overview.window = {steps.front().start_ns, steps.back().end_ns};
  overview.steps = static_cast<int64_t>(steps.size());
  overview.average_step_ns = overview.window.length() / overview.steps;
  overview.device = DeviceWithMostKernelTime(profile);
  if (overview.window.length() <= 0) return overview;

  std::vector<const Kernel*> kernels;
  std::vector<Interval> kernel_intervals;
  kernels.reserve(profile.kernels.size());
  kernel_intervals.reserve(profile.kernels.size());
  double occupancy_weighted = 0;
  TimeNs occupancy_time_ns = 0;
  for (const Kernel& k : profile.kernels) {
    if (k.device != overview.device) continue;
    kernels.push_back(&k);
    kernel_intervals.push_back({k.start_ns, k.end_ns()});
    if (k.est_achieved_occupancy_pct >= 0) {
      TimeNs clipped = OverlapLength(k.start_ns, k.end_ns(), overview.window);
      occupancy_weighted += k.est_achieved_occupancy_pct * static_cast<double>(clipped);
      occupancy_time_ns += clipped;
    }
  }
  const double window_ns = static_cast<double>(overview.window.length());
  overview.kernel_union_ns = IntervalSet::Union(std::move(kernel_intervals)).LengthWithin(overview.window);
  overview.gpu_utilization_pct = 100.0 * static_cast<double>(overview.kernel_union_ns) / window_ns;
  if (auto efficiency = EstimatedSmEfficiency(kernels, overview.window)) {
    overview.est_sm_efficiency_pct = 100.0 * *efficiency;
  }
  if (occupancy_time_ns > 0) {
    overview.est_achieved_occupancy_pct = occupancy_weighted / static_cast<double>(occupancy_time_ns);
  }
  return overview;
}

}  // namespace kraken
