// The GPU events of a profile in one flat list, each with its timeline class, and the
// interval sets (busy, compute, communication, memcpy, exposed parts) that the timeline
// breakdown measures windows against. Building is O(n log n); measuring a window is
// O(log n + intervals inside it), so per-step and per-stream figures stay cheap.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/timeline_breakdown.h"
#include "model/profile.h"

namespace kraken {

enum class GpuEventClass : uint8_t { kCompute, kCommunication, kMemcpy };

struct GpuEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t stream = -1;
  int64_t correlation_id = -1;
  int32_t device = -1;
  GpuEventClass event_class = GpuEventClass::kCompute;
};

// Sorted, de-duplicated correlation ids of the runtime calls: the "linked" test of a
// GPU event is a binary search here (no hash nodes allocated per event).
std::vector<int64_t> RuntimeCorrelationIds(const Profile& profile);

// Kernels and memory ops as GpuEvents, sorted by start. With `linked_only`, events whose
// correlation id matches no runtime call are left out (TraceLens' default).
std::vector<GpuEvent> CollectGpuEvents(const Profile& profile, bool linked_only);

// The union of each class over a set of events, plus what is needed to count events in
// a window. Build once, measure many windows.
class GpuClassSets {
 public:
  explicit GpuClassSets(std::span<const GpuEvent> events);

  // Figures over `window`; `closed_end` also counts zero-length events at window.end_ns
  // (the last window of a trace ends exactly at its last event).
  TimelineBreakdown Measure(const Interval& window, bool closed_end) const;

 private:
  int64_t CountEvents(const Interval& window, bool closed_end) const;

  IntervalSet busy_;
  IntervalSet compute_;
  IntervalSet comm_;
  IntervalSet memcpy_;
  IntervalSet exposed_comm_;
  IntervalSet exposed_memcpy_;
  // For counting: starts and ends of events with a duration, starts of zero-length ones.
  std::vector<TimeNs> starts_;
  std::vector<TimeNs> ends_;
  std::vector<TimeNs> instants_;
};

// [first start, last end] over `events` (zero-length events included, as TraceLens and
// HTA do); {0, 0} when there are none.
Interval SpanOf(std::span<const GpuEvent> events);

}  // namespace kraken
