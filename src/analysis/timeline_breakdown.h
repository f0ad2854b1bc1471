// The figures of a GPU timeline breakdown over one window (definitions in timeline.h and
// docs/analysis-timeline.md). A header of its own so that code that only carries or
// prints a breakdown need not see how it is computed.
#pragma once

#include <cstdint>

#include "analysis/intervals.h"

namespace kraken {

struct TimelineBreakdown {
  Interval window;  // the span measured
  TimeNs total_ns = 0;
  TimeNs busy_ns = 0;
  TimeNs idle_ns = 0;
  TimeNs compute_ns = 0;
  TimeNs comm_ns = 0;
  TimeNs exposed_comm_ns = 0;
  TimeNs memcpy_ns = 0;
  TimeNs exposed_memcpy_ns = 0;
  int64_t gpu_events = 0;  // events that contributed (after clipping to the window)

  double idle_pct() const { return total_ns > 0 ? 100.0 * static_cast<double>(idle_ns) / total_ns : 0; }
  double pct(TimeNs part) const { return total_ns > 0 ? 100.0 * static_cast<double>(part) / total_ns : 0; }
};

}  // namespace kraken
