// How a long Prometheus range query is cut up: the step (resolution) and the time windows
// it is asked in. Prometheus refuses a query_range whose result would exceed 11,000
// points per series ("exceeded maximum resolution of 11,000 points per timeseries"), so
// a week at a fine step must be paginated over time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::promql {

// The server's hard limit (prometheus/web/api/v1/api.go) and the size kraken asks for,
// kept below it so that a server with a slightly different rounding never refuses.
inline constexpr int64_t kServerMaxPointsPerSeries = 11'000;
inline constexpr int64_t kDefaultPointsPerWindow = 10'000;
// Auto step: dcgm-exporter's default collect interval is 30 s and Prometheus scrapes
// every 15-60 s, so 60 s keeps nearly every sample without interpolating between them.
inline constexpr int64_t kAutoStepFloorS = 60;
// Auto step also keeps a query to at most this many windows (a year at 60 s is 53).
inline constexpr int64_t kAutoMaxWindows = 60;

// One query_range call: both ends inclusive, aligned to the step.
struct QueryWindow {
  int64_t start_s = 0;
  int64_t end_s = 0;
  int64_t points = 0;  // evaluation instants in [start_s, end_s]
};

struct QueryPlan {
  int64_t step_s = 0;
  std::vector<QueryWindow> windows;  // consecutive, never overlapping
  int64_t total_points = 0;
};

// Parses a Prometheus duration: one or more NUMBER UNIT parts, units ms s m h d w y
// ("7d", "1h30m", "90s"). Whole seconds; fractions of a second are refused.
Result<int64_t> ParsePromDurationSeconds(std::string_view text);

// Plans [end_s - range_s, end_s] at `step_s` (0 = auto: max(60 s, range / (60 x 10,000)))
// with at most `points_per_window` instants per window (<= the server's 11,000).
Result<QueryPlan> PlanRangeQuery(int64_t end_s, int64_t range_s, int64_t step_s,
                                 int64_t points_per_window = kDefaultPointsPerWindow);

}  // namespace kraken::promql
