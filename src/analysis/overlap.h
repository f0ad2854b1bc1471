// Named overlap categories of the GPU timeline: the span from the first to the last GPU
// event split into disjoint parts by which of computation, communication and memcpy run
// (classes as in timeline.h). "Computation overlapping communication" is HTA's
// communication-computation overlap (get_comm_comp_overlap reports it as a share of
// communication time: comm_overlap_pct here).
#pragma once

#include <string>
#include <vector>

#include "analysis/intervals.h"
#include "model/profile.h"

namespace kraken {

struct OverlapCategory {
  std::string name;  // stable key: compute_only, compute_comm, ...
  TimeNs duration_ns = 0;
};

struct OverlapBreakdown {
  Interval window;
  // compute_only, comm_only, memcpy_only, compute_comm, compute_memcpy, comm_memcpy,
  // compute_comm_memcpy, idle: they tile the window.
  std::vector<OverlapCategory> categories;
  TimeNs comm_ns = 0;
  TimeNs comm_overlapped_ns = 0;  // |communication ∩ computation|
  double comm_overlap_pct() const {
    return comm_ns > 0 ? 100.0 * static_cast<double>(comm_overlapped_ns) / static_cast<double>(comm_ns) : 0;
  }
  TimeNs Duration(const std::string& name) const;
};

OverlapBreakdown AnalyzeOverlap(const Profile& profile, bool linked_only = false);

}  // namespace kraken
