// `kraken temporal --forecast 24h`: the forecast values from the end of a series up to a
// horizon, with prediction intervals from the forecaster's own errors at each lead time
// (empirical quantiles of y[t+h] - forecast over rolling origins of the series' history:
// split-conformal style, no distribution assumed), and how often the intervals held on the
// held-out tail when fitted on the head only (docs/temporal.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/temporal/forecast_model.h"
#include "analysis/temporal/regular_grid.h"

namespace kraken::temporal {

struct ForecastPoint {
  size_t steps = 0;   // lead time in grid steps
  int64_t at = 0;     // axis position of the forecast target
  double value = 0;
  double lo80 = 0, hi80 = 0;  // 10 % and 90 % quantiles
  double lo95 = 0, hi95 = 0;  // 2.5 % and 97.5 %
  size_t residuals = 0;       // errors the interval is built from
};

struct ForecastPath {
  std::vector<ForecastPoint> points;
  // Back-test: intervals from the head's errors, scored on the tail's targets.
  size_t coverage_targets = 0;
  double coverage80 = 0;  // share of held-out targets inside the 80 % interval
  double coverage95 = 0;
};

struct ForecastPathOptions {
  size_t max_points = 96;         // lead times written (evenly strided up to the horizon)
  size_t max_origins = 400;       // origins per lead time for the residuals
  double test_fraction = 0.25;    // tail of the coverage back-test
};

// Forecasts from the series' last point for lead times up to `horizon_steps`; points whose
// lead time has too little history for `params` are left out.
ForecastPath ComputeForecastPath(const RegularGrid& grid, size_t horizon_steps, const ForecastParams& params,
                                 const ForecastPathOptions& options = {});

}  // namespace kraken::temporal
