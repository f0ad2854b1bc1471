// The sampled metrics of profiles as chart-ready panels (utilization, memory, power over
// time) for the HTML report and the dashboard: `kraken analyze --json` carries only their
// statistics, the charts need the samples themselves.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/profile.h"

namespace kraken {

// {"start_unix_s": ..., "panels": [{"id", "title", "unit", "series": [{"name", "metric",
// "samples", "series_count", "clock", "t_s": [...], "v": [...], "min": [...], "max": [...]}]}]}.
// t_s counts seconds from the earliest sample of all inputs on the same clock: "unix"
// (samplers with a wall clock, start_unix_s) or "relative" (inputs without one; a profile
// never mixes the two, model/time_base.h). A series longer than `max_points` is reduced to
// `max_points` buckets of equal sample runs: v their means, min and max their extremes;
// `samples` is the count before that. A metric with more than 16 series in one panel (a
// trace of 143 pods) is one envelope line instead (series_count = how many), on
// `max_points` equal time buckets: per bucket the mean, min and max over every sample of
// every series. Series indexed by iteration instead of time are left out. Memory is in GiB.
std::string RenderSeriesTimelineJson(const std::vector<Profile>& profiles, size_t max_points = 600);

}  // namespace kraken
