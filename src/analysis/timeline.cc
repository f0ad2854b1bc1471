#include "analysis/timeline.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include "analysis/gpu_event_sets.h"

namespace kraken {
namespace {

constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();

std::vector<StreamTimeline> StreamTimelines(std::span<const GpuEvent> events, const Interval& rank_window) {
  std::vector<GpuEvent> by_stream(events.begin(), events.end());
  // Stable: each stream's events stay sorted by start.
  std::stable_sort(by_stream.begin(), by_stream.end(), [](const GpuEvent& a, const GpuEvent& b) {
    return std::pair(a.device, a.stream) < std::pair(b.device, b.stream);
  });
  std::vector<StreamTimeline> streams;
  size_t begin = 0;
  while (begin < by_stream.size()) {
    size_t end = begin;
    while (end < by_stream.size() && by_stream[end].device == by_stream[begin].device &&
           by_stream[end].stream == by_stream[begin].stream) {
      ++end;
    }
    StreamTimeline stream;
    stream.device = by_stream[begin].device;
    stream.stream = by_stream[begin].stream;
    GpuClassSets sets(std::span<const GpuEvent>(by_stream.data() + begin, end - begin));
    stream.breakdown = sets.Measure(rank_window, /*closed_end=*/true);
    streams.push_back(stream);
    begin = end;
  }
  return streams;
}

// Finds, for a time on the CPU clock, the ProfilerStep whose range contains it.
class StepLocator {
 public:
  explicit StepLocator(const std::vector<StepAnnotation>& sorted_steps) : steps_(sorted_steps) {}
  // Index of the step with start <= t < end, or -1. Steps do not overlap.
  int64_t Find(TimeNs t) const {
    auto it = std::upper_bound(steps_.begin(), steps_.end(), t,
                               [](TimeNs time, const StepAnnotation& s) { return time < s.start_ns; });
    if (it == steps_.begin()) return -1;
    --it;
    return t < it->end_ns() ? it - steps_.begin() : -1;
  }

 private:
  const std::vector<StepAnnotation>& steps_;
};

struct LaunchedByStep {
  TimeNs first_start_ns = std::numeric_limits<TimeNs>::max();
  TimeNs last_end_ns = kNoTime;
  int64_t count = 0;
};

// Which step launched each GPU event: the step holding its runtime call, else the step
// its own start falls in.
std::vector<LaunchedByStep> AttributeToSteps(const Profile& profile, const std::vector<StepAnnotation>& steps,
                                             std::span<const GpuEvent> events) {
  StepLocator locator(steps);
  std::vector<std::pair<int64_t, TimeNs>> launch_time;  // (correlation id, runtime call start)
  launch_time.reserve(profile.runtime_calls.size());
  for (const RuntimeCall& call : profile.runtime_calls) {
    if (call.correlation_id >= 0) launch_time.emplace_back(call.correlation_id, call.start_ns);
  }
  std::sort(launch_time.begin(), launch_time.end());

  std::vector<LaunchedByStep> launched(steps.size());
  for (const GpuEvent& e : events) {
    int64_t step = -1;
    if (e.correlation_id >= 0) {
      auto it = std::lower_bound(launch_time.begin(), launch_time.end(), std::pair(e.correlation_id, kNoTime));
      if (it != launch_time.end() && it->first == e.correlation_id) step = locator.Find(it->second);
    }
    if (step < 0) step = locator.Find(e.start_ns);
    if (step < 0) continue;
    LaunchedByStep& l = launched[step];
    l.first_start_ns = std::min(l.first_start_ns, e.start_ns);
    l.last_end_ns = std::max(l.last_end_ns, e.end_ns);
    ++l.count;
  }
  return launched;
}

void AddStepTimelines(const Profile& profile, std::span<const GpuEvent> events, const GpuClassSets& sets,
                      RankTimeline* out) {
  if (profile.steps.empty()) return;
  std::vector<StepAnnotation> steps = profile.steps;
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepAnnotation& a, const StepAnnotation& b) { return a.start_ns < b.start_ns; });
  std::vector<LaunchedByStep> launched = AttributeToSteps(profile, steps, events);
  const int64_t n = static_cast<int64_t>(steps.size());

  // Window starts, kept monotone; then ends = the next window's start, walking back.
  std::vector<Interval> windows(steps.size());
  int64_t first_with_events = -1, last_with_events = -1;
  TimeNs floor = kNoTime;
  for (int64_t i = 0; i < n; ++i) {
    if (launched[i].count == 0) continue;
    floor = std::max(floor, launched[i].first_start_ns);
    windows[i].start_ns = floor;
    if (first_with_events < 0) first_with_events = i;
    last_with_events = i;
  }
  if (last_with_events >= 0) {
    // Normally the last step's own last GPU event; work of an earlier step that runs
    // even later stays inside the stepped span.
    TimeNs stepped_end = windows[last_with_events].start_ns;
    for (const LaunchedByStep& l : launched) stepped_end = std::max(stepped_end, l.last_end_ns);
    TimeNs boundary = stepped_end;
    for (int64_t i = n - 1; i >= 0; --i) {
      if (i <= last_with_events && launched[i].count > 0) {
        windows[i].end_ns = boundary;
        boundary = windows[i].start_ns;
      } else {
        windows[i] = {boundary, boundary};
      }
    }
    out->steps_total = sets.Measure({windows[first_with_events].start_ns, stepped_end}, /*closed_end=*/true);
  }

  out->steps.reserve(steps.size());
  for (int64_t i = 0; i < n; ++i) {
    StepTimeline step;
    step.step_number = steps[i].step_number;
    step.cpu_window = {steps[i].start_ns, steps[i].end_ns()};
    step.launched_gpu_events = launched[i].count;
    if (launched[i].count > 0) step.last_gpu_end_ns = launched[i].last_end_ns;
    if (last_with_events >= 0) {
      step.breakdown = sets.Measure(windows[i], /*closed_end=*/i == last_with_events);
    }
    out->steps.push_back(step);
  }
}

}  // namespace

RankTimeline AnalyzeTimeline(const Profile& profile, const TimelineOptions& options) {
  RankTimeline out;
  if (!profile.metadata.kernel_timestamps_valid) return out;
  std::vector<GpuEvent> events = CollectGpuEvents(profile, options.linked_only);
  GpuClassSets sets(events);
  Interval span = SpanOf(events);
  out.trace = sets.Measure(span, /*closed_end=*/true);
  out.streams = StreamTimelines(events, span);
  AddStepTimelines(profile, events, sets, &out);
  return out;
}

TimelineBreakdown AnalyzeTimelineWindow(const Profile& profile, const Interval& window,
                                        const TimelineOptions& options) {
  if (!profile.metadata.kernel_timestamps_valid) return {};
  std::vector<GpuEvent> events = CollectGpuEvents(profile, options.linked_only);
  return GpuClassSets(events).Measure(window, /*closed_end=*/true);
}

}  // namespace kraken
