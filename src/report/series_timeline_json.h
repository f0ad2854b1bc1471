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
// "samples", "clock", "t_s": [...], "v": [...]}]}]}. t_s counts seconds from the earliest
// sample of all inputs on the same clock: "unix" (samplers with a wall clock, start_unix_s)
// or "relative" (sections without one, e.g. nvidia-smi dmon without -o T). A series longer than `max_points` is reduced to `max_points` bucket means
// (so a day of 1 Hz samples stays a small page); `samples` is the count before that.
// Series indexed by iteration instead of time are left out. Memory is shown in GiB.
std::string RenderSeriesTimelineJson(const std::vector<Profile>& profiles, size_t max_points = 600);

}  // namespace kraken
