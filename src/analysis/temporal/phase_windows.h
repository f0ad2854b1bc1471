// The peak window and the idle windows of a mean cycle (PeriodicityResult::profile): runs
// of phases at >= peak_level or <= idle_level of the profile's range, found on the profile
// smoothed over +-window_smoothing of the period, runs closer than window_merge_gap joined,
// each with its recurrence over the complete cycles of the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/temporal/periodicity.h"

namespace kraken::temporal {

// `y`: the analysis-grid values; `first_phase`: the phase bin of y[0]; `step`: the analysis
// step in axis units. Fills r->peak and r->idle_windows from r->profile.
void FillPhaseWindows(const std::vector<double>& y, size_t first_phase, int64_t step, const PeriodicityOptions& o,
                      PeriodicityResult* r);

}  // namespace kraken::temporal
