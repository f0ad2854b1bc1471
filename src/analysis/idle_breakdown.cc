#include "analysis/idle_breakdown.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "analysis/gpu_event_sets.h"

namespace kraken {
namespace {

constexpr TimeNs kNotLaunched = std::numeric_limits<TimeNs>::min();

// Launch time (runtime call start) by correlation id, sorted for binary search.
std::vector<std::pair<int64_t, TimeNs>> LaunchTimes(const Profile& profile) {
  std::vector<std::pair<int64_t, TimeNs>> out;
  out.reserve(profile.runtime_calls.size());
  for (const RuntimeCall& c : profile.runtime_calls)
    if (c.correlation_id >= 0) out.push_back({c.correlation_id, c.start_ns});
  std::sort(out.begin(), out.end());
  return out;
}

TimeNs LaunchOf(const std::vector<std::pair<int64_t, TimeNs>>& launches, int64_t correlation_id) {
  if (correlation_id < 0) return kNotLaunched;
  auto it = std::lower_bound(launches.begin(), launches.end(), std::make_pair(correlation_id, kNotLaunched));
  return it != launches.end() && it->first == correlation_id ? it->second : kNotLaunched;
}

// One gap [gap_start, next_start) ended by an event launched at `launch_ns`.
void AddGap(IdleParts& parts, TimeNs gap_start, TimeNs next_start, TimeNs launch_ns, TimeNs kernel_delay_ns) {
  TimeNs gap = next_start - gap_start;
  if (gap <= 0) return;
  ++parts.gaps;
  if (launch_ns != kNotLaunched && launch_ns > gap_start) parts.host_wait_ns += gap;
  else if (gap < kernel_delay_ns) parts.kernel_wait_ns += gap;
  else parts.other_ns += gap;
}

// HTA's per-stream breakdown: consecutive events of one stream, by start time.
IdleParts StreamGaps(const std::vector<const GpuEvent*>& events, const std::vector<std::pair<int64_t, TimeNs>>& launches,
                     TimeNs kernel_delay_ns) {
  IdleParts parts;
  for (size_t i = 1; i < events.size(); ++i) {
    TimeNs prev_end = events[i - 1]->end_ns;
    AddGap(parts, prev_end, events[i]->start_ns, LaunchOf(launches, events[i]->correlation_id), kernel_delay_ns);
  }
  return parts;
}

// The rank's gaps: where no event of any stream runs. Each gap is attributed with the
// launch of the event that ends it (the first to start at the gap's end).
struct UnionGap {
  TimeNs start_ns;
  TimeNs end_ns;
  TimeNs launch_ns;
};

std::vector<UnionGap> UnionGaps(const std::vector<GpuEvent>& events, const std::vector<std::pair<int64_t, TimeNs>>& launches) {
  std::vector<UnionGap> gaps;
  TimeNs busy_until = std::numeric_limits<TimeNs>::min();
  for (const GpuEvent& e : events) {  // sorted by start
    if (busy_until != std::numeric_limits<TimeNs>::min() && e.start_ns > busy_until)
      gaps.push_back({busy_until, e.start_ns, LaunchOf(launches, e.correlation_id)});
    busy_until = std::max(busy_until, e.end_ns);
  }
  return gaps;
}

IdleParts ClipGaps(const std::vector<UnionGap>& gaps, const Interval& window, TimeNs kernel_delay_ns) {
  IdleParts parts;
  auto first = std::lower_bound(gaps.begin(), gaps.end(), window.start_ns,
                                [](const UnionGap& g, TimeNs t) { return g.end_ns <= t; });
  for (auto it = first; it != gaps.end() && it->start_ns < window.end_ns; ++it) {
    TimeNs start = std::max(it->start_ns, window.start_ns);
    TimeNs end = std::min(it->end_ns, window.end_ns);
    // The cause is judged on the whole gap (was the next event launched when it began?).
    IdleParts whole;
    AddGap(whole, it->start_ns, it->end_ns, it->launch_ns, kernel_delay_ns);
    TimeNs part = end - start;
    if (part <= 0) continue;
    ++parts.gaps;
    if (whole.host_wait_ns > 0) parts.host_wait_ns += part;
    else if (whole.kernel_wait_ns > 0) parts.kernel_wait_ns += part;
    else parts.other_ns += part;
  }
  return parts;
}

}  // namespace

IdleBreakdown AnalyzeIdleBreakdown(const Profile& profile, const std::vector<StepWindowRef>& steps,
                                   const IdleBreakdownOptions& options) {
  IdleBreakdown out;
  if (!profile.metadata.kernel_timestamps_valid) return out;
  std::vector<GpuEvent> events = CollectGpuEvents(profile, options.linked_only);
  if (events.empty()) return out;
  const auto launches = LaunchTimes(profile);
  std::map<std::pair<int32_t, int64_t>, std::vector<const GpuEvent*>> by_stream;
  for (const GpuEvent& e : events) by_stream[{e.device, e.stream}].push_back(&e);
  for (const auto& [key, stream_events] : by_stream)
    out.streams.push_back({key.first, key.second, StreamGaps(stream_events, launches, options.consecutive_kernel_delay_ns)});
  const std::vector<UnionGap> gaps = UnionGaps(events, launches);
  Interval all{events.front().start_ns, std::numeric_limits<TimeNs>::max()};
  out.rank = ClipGaps(gaps, all, options.consecutive_kernel_delay_ns);
  for (const StepWindowRef& step : steps)
    out.steps.push_back({step.step_number, step.window, ClipGaps(gaps, step.window, options.consecutive_kernel_delay_ns)});
  return out;
}

}  // namespace kraken
