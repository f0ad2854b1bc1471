// The forecaster of `kraken temporal` ("seasonal mean + damped deviation"; docs/temporal.md):
//   seasonal (a period P was found):
//     base(t, h) = average over the K most recent cycles that end at or before t of the
//                  values at the target's phase, each over a box of +-W steps;
//     dev(t)     = average of the last L values - the average of the same L phases in the
//                  K cycles before them (how far the series runs above its seasonal mean);
//   non-seasonal:
//     base(t, h) = average of the last M values;  dev(t) = average of the last L - base;
//   forecast(t + h) = base(t, h) + beta_h * dev(t).
// "Average" is the mean, or the median in the robust variant (the MAE-optimal choice for
// spiky, mostly-idle series such as a serving pod's duty cycle). beta_h near 1 says the
// present level persists h steps ahead, near 0 that it fades into the mean. The naive
// y[t] and seasonal-naive y[t + h - ceil(h/P) P] forecasts are methods too.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace kraken::temporal {

enum class ForecastMethod { kNaive, kSeasonalNaive, kSeasonalMean, kLocalMean };
const char* ForecastMethodName(ForecastMethod method);

struct ForecastParams {
  ForecastMethod method = ForecastMethod::kNaive;
  bool robust = false;      // medians instead of means
  size_t period = 0;        // grid steps (seasonal methods)
  size_t cycles = 1;        // K
  size_t smooth = 0;        // W, half-width of the box around each past phase
  size_t mean_window = 1;   // M (non-seasonal)
  size_t level_window = 1;  // L
  double beta = 1.0;
};

// A series prepared for forecasting: its values and their prefix sums (window means in
// O(1)), plus scratch space for medians.
class ForecastSeries {
 public:
  explicit ForecastSeries(const std::vector<double>& values);
  size_t size() const { return values_.size(); }
  double at(size_t i) const { return values_[i]; }
  // Mean or median of values[a, b) (a < b).
  double Average(size_t a, size_t b, bool robust) const;
  // The same over several ranges taken together.
  double Average(const std::vector<std::pair<size_t, size_t>>& ranges, bool robust) const;

 private:
  const std::vector<double>& values_;
  std::vector<double> prefix_;
  mutable std::vector<double> scratch_;
};

// Whether `origin` has enough history for Forecast with these parameters.
bool CanForecast(size_t origin, size_t h, const ForecastParams& p);

// The forecast of y[origin + h] from y[0..origin]; CanForecast must hold.
double Forecast(const ForecastSeries& y, size_t origin, size_t h, const ForecastParams& p);

// The index ranges [a, b) the two parts average, for callers that cache them:
// the base (the target's phase in K past cycles, or the last M values) ...
std::vector<std::pair<size_t, size_t>> BaseRanges(size_t origin, size_t h, const ForecastParams& p);
// ... and, for the seasonal mean, the last L phases K cycles back (the reference of dev).
std::vector<std::pair<size_t, size_t>> PastLevelRanges(size_t origin, const ForecastParams& p);

}  // namespace kraken::temporal
