// Scoring the forecaster (forecast_model.h) with rolling origins.
//
// Per horizon (direct strategy) the method and its parameters are chosen on rolling
// origins inside the training part only: the candidates are the naive forecast, the
// seasonal naive one (with a period), and a small grid of (robust?, K, W, L) or
// (robust?, M, L) with beta_h in {0, 0.1, ..., 1}. The better baseline is kept unless
// the best fitted candidate beats it clearly (ForecastOptions::selection_*).
//
// Evaluation: the training part is the head of the series, the held-out test part its
// tail. Origins t step through the tail (strided to at most max_origins); for each, every
// method sees values[0..t] only and predicts values[t + h]. Targets that were
// interpolated (no sample) are not scored. MASE here = MAE(model) / MAE(baseline) over
// the SAME origins and horizon, where the baseline is the seasonal-naive forecast
// y[t + h - ceil(h/P) P] with a period, the naive y[t] without: below 1 beats it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/temporal/forecast_model.h"
#include "analysis/temporal/regular_grid.h"

namespace kraken::temporal {

struct ForecastOptions {
  double test_fraction = 0.25;   // held-out tail
  size_t max_origins = 1000;     // test origins, evenly strided
  size_t max_fit_origins = 500;  // training origins used to choose parameters
  size_t min_fit_origins = 20;
  // Parameters are chosen on the most recent `fit_span` of the feasible training origins;
  // the older part is history for the larger windows.
  double fit_span = 0.5;
  // A fitted model replaces the better baseline only when it beats it on the training
  // origins by this share AND the gain holds across the training period: its mean over
  // blocks of h consecutive origins is at least `selection_t` standard errors above zero
  // (origins closer than h share their errors, so only blocks count as independent). A
  // smaller or less consistent gain is as likely to be fitted noise.
  double selection_margin = 0.02;
  double selection_t = 1.0;
};

struct HorizonEvaluation {
  std::string label;      // as requested ("1h")
  int64_t horizon = 0;    // axis units actually used (steps * grid step)
  size_t steps = 0;
  bool evaluated = false;
  std::string reason;     // why not, when !evaluated
  bool seasonal = false;  // the seasonal model and baseline were used
  ForecastParams params;
  size_t fit_origins = 0;
  double fit_mae = 0;              // the chosen method on the training origins
  double fit_mae_naive = 0;        // the baselines there, for the record
  double fit_mae_seasonal_naive = 0;  // NaN without a seasonal baseline
  double fit_mae_best_fitted = 0;  // the best fitted candidate (chosen only when selection_margin better)
  size_t selection_blocks = 0;     // blocks of h origins in the consistency test (0: not run)
  double selection_t = 0;          // the fitted candidate's mean block gain / standard error
  size_t origins = 0;  // scored test origins
  double mae_model = 0;
  double mae_baseline = 0;  // seasonal naive when seasonal, else naive
  double mae_naive = 0;     // naive y[t], always
  double mase = 0;          // mae_model / mae_baseline (NaN when the baseline is exact)
  double ratio_vs_naive = 0;
};

struct ForecastEvaluation {
  size_t period = 0;  // grid steps; 0 = none
  size_t train_points = 0;
  size_t test_points = 0;
  std::vector<HorizonEvaluation> horizons;
};

// One requested horizon: its label and length in steps of the grid (0 = not usable,
// with `reason` set by the caller).
struct HorizonRequest {
  std::string label;
  size_t steps = 0;
  std::string reason;
};

// Chooses the parameters on the training head and scores the model and the baselines on
// the tail, per horizon. `period` in grid steps, 0 for none.
ForecastEvaluation EvaluateForecasts(const RegularGrid& grid, size_t period, const std::vector<HorizonRequest>& horizons,
                                     const ForecastOptions& options = {});

}  // namespace kraken::temporal
