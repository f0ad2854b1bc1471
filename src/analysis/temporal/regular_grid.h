// Puts a sampled series on a regular grid, the form every periodicity and forecasting
// method needs. Samplers drift, skip and repeat; the rules here are the ones
// docs/temporal.md documents:
//   - step: the median spacing of consecutive distinct sample times (the native step),
//     unless the caller gives one;
//   - a sample goes to the nearest grid point, round((t - t0) / step); several samples on
//     one point are averaged;
//   - a point no sample reached is linearly interpolated between its observed neighbours
//     and marked unobserved, so that evaluations can score observed points only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "model/series.h"

namespace kraken::temporal {

struct GridOptions {
  int64_t step = 0;                    // axis units (ns or iterations); 0 = native step
  size_t max_points = 50'000'000;      // refuse grids larger than this (a broken clock)
};

struct RegularGrid {
  int64_t start = 0;  // axis position of values[0]
  int64_t step = 0;   // axis units between points
  std::vector<double> values;
  std::vector<uint8_t> observed;  // 1 where a sample fell on the point, 0 where interpolated
  size_t samples = 0;             // input samples used
  size_t merged_samples = 0;      // samples that shared a point with an earlier one
  size_t filled_points = 0;       // points with no sample (interpolated)
  size_t longest_gap_points = 0;  // longest run of filled points

  size_t size() const { return values.size(); }
  int64_t TimeAt(size_t i) const { return start + static_cast<int64_t>(i) * step; }
};

// The median spacing of consecutive distinct times; 0 with fewer than two distinct times.
int64_t NativeStep(const std::vector<Sample>& samples);

// Non-finite sample values are skipped. Fails when no step can be found (fewer than two
// distinct times) or the grid would exceed options.max_points.
Result<RegularGrid> ResampleToGrid(const std::vector<Sample>& samples, const GridOptions& options = {});

// Averages `factor` consecutive points into one (the last, partial group too); a coarse
// point is observed when any of its fine points was.
RegularGrid Coarsen(const RegularGrid& grid, size_t factor);

}  // namespace kraken::temporal
