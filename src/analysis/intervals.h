// Interval arithmetic on the timeline: unions, differences and intersections of
// half-open [start, end) ranges in nanoseconds. Every timeline figure kraken prints
// (busy, exposed communication, per-step windows) is computed with these.
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace_events.h"

namespace kraken {

struct Interval {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  TimeNs length() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const Interval&) const = default;
};

// A sorted list of disjoint, non-empty intervals.
class IntervalSet {
 public:
  IntervalSet() = default;
  // Builds the union of arbitrary (unsorted, overlapping, empty) intervals.
  static IntervalSet Union(std::vector<Interval> intervals);

  const std::vector<Interval>& intervals() const { return intervals_; }
  bool empty() const { return intervals_.empty(); }
  TimeNs TotalLength() const;

  // Parts of this set not covered by `other`.
  IntervalSet Minus(const IntervalSet& other) const;
  // Parts covered by both.
  IntervalSet Intersect(const IntervalSet& other) const;
  IntervalSet Unite(const IntervalSet& other) const;
  // This set cut to [window.start_ns, window.end_ns).
  IntervalSet Clip(const Interval& window) const;
  // Length of the part of this set inside `window`, without building a new set.
  TimeNs LengthWithin(const Interval& window) const;

 private:
  std::vector<Interval> intervals_;
};

}  // namespace kraken
