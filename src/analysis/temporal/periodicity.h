// Periodicity detection: does a utilization or allocation series repeat itself, with
// which period, how strongly, and when in the cycle is it high or idle?
//
// Method (docs/temporal.md has the reasoning):
//   1. Average the grid into at most `max_analysis_points` bins (a whole number of native
//      steps, dividing a day when the step does), so that the candidate periods span
//      minutes to a week at a cost that does not depend on the sampling rate.
//   2. Remove slow level changes: subtract a centered moving average as long as the
//      longest candidate period (a trend that moves over weeks would otherwise make every
//      lag look correlated).
//   3. Autocorrelation r_k of what is left, for every candidate lag k.
//   4. A lag is a period candidate when r_k is a local maximum that rose at least
//      `min_prominence` above the lowest r_j for j in [k/2, k] (a cycle has a trough
//      between its repeats; slowly decaying persistence has none).
//   5. A candidate is significant when r_k exceeds the large-lag (Bartlett) band
//      z * sqrt((1 + 2 sum_{j<k} r_j^2) / n) and `min_acf` (the band says the peak is not
//      noise given the short-range correlation, min_acf that it is strong enough to
//      matter), AND its strength of seasonality (Wang, Smith & Hyndman 2006; classical
//      decomposition at the lag, F = max(0, 1 - Var(remainder) / Var(seasonal +
//      remainder))) is at least `min_strength`: a pattern whose phase drifts from cycle to
//      cycle correlates with its neighbour but has no mean shape to forecast or to
//      schedule by.
//   6. The period is the significant candidate with the highest r_k (a shorter one that
//      it is a multiple of wins when within `harmonic_tolerance`); none -> "no significant
//      period", never a guess.
//   7. The cycle's profile (mean level per phase, phase = position mod period counted
//      from the axis' zero, i.e. time of day in the file's clock for a daily period) gives
//      the peak window and the idle windows (recurring low phases).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/temporal/regular_grid.h"

namespace kraken::temporal {

struct PeriodicityOptions {
  size_t max_analysis_points = 4096;
  // Preferred unit the analysis step should divide (a day, in axis units), so that daily
  // and weekly periods fall on whole bins; 0 = none (iteration axes).
  int64_t calendar_unit = 86'400'000'000'000;
  int64_t max_period = 7 * 86'400'000'000'000LL;  // axis units; 0 = no cap but min_cycles
  size_t min_period_points = 3;   // shortest candidate, in analysis steps
  double min_cycles = 3.0;        // the period must repeat at least this often in the data
  double z = 3.0;                 // Bartlett band multiplier
  double min_acf = 0.3;           // practical floor on the autocorrelation at the period
  double min_prominence = 0.1;    // rise of r_k over its trough in [k/2, k]
  double min_strength = 0.3;      // floor on the strength of seasonality F
  double harmonic_tolerance = 0.05;
  double peak_level = 0.8;  // peak window: profile >= min + peak_level * (max - min)
  double idle_level = 0.2;  // idle windows: profile <= min + idle_level * (max - min)
  // The thresholds apply to the profile averaged over +-window_smoothing of the period
  // (none below 96 phases), and windows closer than window_merge_gap of the period are
  // one window: noise on the mean cycle must not split one idle night into three.
  double window_smoothing = 1.0 / 96;
  double window_merge_gap = 1.0 / 48;
  // More interpolated than observed grid points: the shape would be the interpolation's.
  double max_filled_share = 0.5;
};

enum class PeriodVerdict { kPeriodic, kNoSignificantPeriod, kConstant, kTooShort, kTooSparse };
const char* PeriodVerdictName(PeriodVerdict verdict);

struct PeriodCandidate {
  size_t lag = 0;  // analysis steps
  double acf = 0;
  double band = 0;        // Bartlett band at this lag (z included)
  double prominence = 0;  // acf minus the lowest acf in [lag/2, lag]
  double strength = 0;    // F at this lag (computed for candidates that pass the acf tests)
  bool significant = false;
};

// A contiguous range of phases (it may wrap around the end of the cycle).
struct PhaseWindow {
  int64_t start = 0;   // axis units from the cycle's start
  int64_t length = 0;  // axis units
  double mean_level = 0;  // mean profile value inside the window (series units)
  // Share of the complete cycles in the data where the window's mean was below (idle) or
  // above (peak) that cycle's own mean: how reliably the phase recurs.
  double recurrence = 0;
};

struct PeriodicityResult {
  PeriodVerdict verdict = PeriodVerdict::kTooShort;
  std::string reason;  // one sentence for a person, set for every verdict

  // The analysis grid.
  size_t coarsen_factor = 1;  // native steps per analysis step
  int64_t analysis_step = 0;  // axis units
  size_t analysis_points = 0;
  size_t min_lag = 0, max_lag = 0;  // candidate range, analysis steps
  size_t detrend_window = 0;        // analysis steps
  double series_mean = 0;
  std::vector<PeriodCandidate> candidates;  // local maxima, highest acf first (at most 8)
  // The autocorrelation at one calendar unit and seven of them (a day and a week) when
  // they are whole candidate lags, peak or not: what "no daily period" rests on.
  std::vector<PeriodCandidate> calendar_lags;

  // Set when verdict == kPeriodic.
  size_t period_points = 0;  // analysis steps
  int64_t period = 0;        // axis units
  double acf = 0, band = 0, prominence = 0;
  double strength = 0;  // F_s in [0, 1]
  size_t complete_cycles = 0;
  std::vector<double> profile;  // mean level per phase bin (analysis steps from the cycle start)
  PhaseWindow peak;
  std::vector<PhaseWindow> idle_windows;
};

PeriodicityResult DetectPeriodicity(const RegularGrid& grid, const PeriodicityOptions& options = {});

// Autocorrelation of `values` at lags 0..max_lag: the mean product of the n - k pairs k
// apart over the variance. Dividing by n - k rather than n (the textbook estimator) keeps
// a period's peak where it is: the n-divided estimator shrinks long lags by (n - k) / n,
// which moves a daily peak a step early and lets a day out-score the week it sits in.
// Exposed for tests.
std::vector<double> Autocorrelation(const std::vector<double>& values, size_t max_lag);

// Centered moving average over `window` points (shortened at the ends). Exposed for tests.
std::vector<double> CenteredMovingAverage(const std::vector<double>& values, size_t window);

}  // namespace kraken::temporal
