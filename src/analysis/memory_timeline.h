// The framework allocator's memory over time, from the profiler's [memory] events
// (profile_memory=True): allocated and reserved bytes per device, the peak and where it
// happens (the innermost CPU operator running then, and the step), and fragmentation =
// reserved - allocated (memory the caching allocator holds but no tensor uses). HTA's
// get_memory_timeline gives the same allocated/reserved series; the peak's place and the
// fragmentation figures are kraken's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace kraken {

struct MemoryPoint {
  TimeNs time_ns = 0;
  double allocated_bytes = 0;
  double reserved_bytes = 0;
};

struct DeviceMemoryTimeline {
  int32_t device = -1;
  int64_t samples = 0;
  double peak_allocated_bytes = 0;
  TimeNs peak_allocated_at_ns = 0;
  std::string peak_allocated_op;    // innermost CPU operator at the peak; "" when none
  int64_t peak_allocated_step = -1;  // ProfilerStep number containing the peak; -1 none
  double peak_reserved_bytes = 0;
  TimeNs peak_reserved_at_ns = 0;
  double fragmentation_at_peak_bytes = 0;  // reserved - allocated at the allocated peak
  double max_fragmentation_bytes = 0;
  double mean_fragmentation_pct = 0;  // time-weighted mean of (reserved - allocated) / reserved
  std::vector<MemoryPoint> series;    // at most `max_points` (the samples around each bin's peak)
};

struct MemoryTimelineOptions {
  size_t max_points = 400;
};

std::vector<DeviceMemoryTimeline> AnalyzeMemoryTimeline(const Profile& profile,
                                                        const MemoryTimelineOptions& options = {});

}  // namespace kraken
