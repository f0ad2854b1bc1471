#include "analysis/intervals.h"

#include <algorithm>

namespace kraken {

IntervalSet IntervalSet::Union(std::vector<Interval> intervals) {
  std::erase_if(intervals, [](const Interval& i) { return i.end_ns <= i.start_ns; });
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  IntervalSet set;
  for (const Interval& i : intervals) {
    if (!set.intervals_.empty() && i.start_ns <= set.intervals_.back().end_ns) {
      set.intervals_.back().end_ns = std::max(set.intervals_.back().end_ns, i.end_ns);
    } else {
      set.intervals_.push_back(i);
    }
  }
  return set;
}

TimeNs IntervalSet::TotalLength() const {
  TimeNs total = 0;
  for (const Interval& i : intervals_) total += i.length();
  return total;
}

IntervalSet IntervalSet::Minus(const IntervalSet& other) const {
  IntervalSet out;
  size_t j = 0;
  const auto& b = other.intervals_;
  for (Interval cur : intervals_) {
    while (j < b.size() && b[j].end_ns <= cur.start_ns) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start_ns < cur.end_ns) {
      if (b[k].start_ns > cur.start_ns) out.intervals_.push_back({cur.start_ns, b[k].start_ns});
      cur.start_ns = std::max(cur.start_ns, b[k].end_ns);
      if (cur.start_ns >= cur.end_ns) break;
      ++k;
    }
    if (cur.start_ns < cur.end_ns) out.intervals_.push_back(cur);
  }
  return out;
}

IntervalSet IntervalSet::Intersect(const IntervalSet& other) const {
  IntervalSet out;
  size_t i = 0, j = 0;
  const auto& a = intervals_;
  const auto& b = other.intervals_;
  while (i < a.size() && j < b.size()) {
    TimeNs start = std::max(a[i].start_ns, b[j].start_ns);
    TimeNs end = std::min(a[i].end_ns, b[j].end_ns);
    if (start < end) out.intervals_.push_back({start, end});
    if (a[i].end_ns < b[j].end_ns) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

IntervalSet IntervalSet::Unite(const IntervalSet& other) const {
  std::vector<Interval> all = intervals_;
  all.insert(all.end(), other.intervals_.begin(), other.intervals_.end());
  return Union(std::move(all));
}

IntervalSet IntervalSet::Clip(const Interval& window) const {
  IntervalSet out;
  auto it = std::lower_bound(intervals_.begin(), intervals_.end(), window.start_ns,
                             [](const Interval& i, TimeNs t) { return i.end_ns <= t; });
  for (; it != intervals_.end() && it->start_ns < window.end_ns; ++it) {
    TimeNs start = std::max(it->start_ns, window.start_ns);
    TimeNs end = std::min(it->end_ns, window.end_ns);
    if (start < end) out.intervals_.push_back({start, end});
  }
  return out;
}

TimeNs IntervalSet::LengthWithin(const Interval& window) const {
  TimeNs total = 0;
  auto it = std::lower_bound(intervals_.begin(), intervals_.end(), window.start_ns,
                             [](const Interval& i, TimeNs t) { return i.end_ns <= t; });
  for (; it != intervals_.end() && it->start_ns < window.end_ns; ++it) {
    TimeNs start = std::max(it->start_ns, window.start_ns);
    TimeNs end = std::min(it->end_ns, window.end_ns);
    if (start < end) total += end - start;
  }
  return total;
}

}  // namespace kraken
