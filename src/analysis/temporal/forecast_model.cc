#include "analysis/temporal/forecast_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kraken::temporal {
namespace {

// Medians of longer windows are taken over every k-th value, so that their cost stays flat.
constexpr size_t kMaxMedianValues = 256;

size_t CeilDiv(size_t a, size_t b) { return (a + b - 1) / b; }

using Ranges = std::vector<std::pair<size_t, size_t>>;

}  // namespace

Ranges BaseRanges(size_t t, size_t h, const ForecastParams& p) {
  Ranges r;
  if (p.method == ForecastMethod::kLocalMean) {
    r.emplace_back(t + 1 - p.mean_window, t + 1);
    return r;
  }
  size_t first = CeilDiv(h, p.period);
  for (size_t j = 0; j < p.cycles; ++j) {
    size_t center = t + h - (first + j) * p.period;  // <= t by the choice of `first`
    r.emplace_back(center - p.smooth, std::min(center + p.smooth + 1, t + 1));
  }
  return r;
}

Ranges PastLevelRanges(size_t t, const ForecastParams& p) {
  Ranges r;
  for (size_t j = 1; j <= p.cycles; ++j) r.emplace_back(t + 1 - p.level_window - j * p.period, t + 1 - j * p.period);
  return r;
}

namespace {

// The two parts of the fitted model at one origin.
struct Parts {
  double base = 0;
  double deviation = 0;
};

Parts ModelParts(const ForecastSeries& y, size_t t, size_t h, const ForecastParams& p) {
  Parts parts;
  parts.base = y.Average(BaseRanges(t, h, p), p.robust);
  double recent = y.Average(t + 1 - p.level_window, t + 1, p.robust);
  double reference = p.method == ForecastMethod::kLocalMean ? parts.base : y.Average(PastLevelRanges(t, p), p.robust);
  parts.deviation = recent - reference;
  return parts;
}

}  // namespace

const char* ForecastMethodName(ForecastMethod method) {
  switch (method) {
    case ForecastMethod::kNaive: return "naive";
    case ForecastMethod::kSeasonalNaive: return "seasonal-naive";
    case ForecastMethod::kSeasonalMean: return "seasonal-mean";
    case ForecastMethod::kLocalMean: return "local-mean";
  }
  return "?";
}

ForecastSeries::ForecastSeries(const std::vector<double>& values) : values_(values), prefix_(values.size() + 1, 0.0) {
  for (size_t i = 0; i < values.size(); ++i) prefix_[i + 1] = prefix_[i] + values[i];
}

double ForecastSeries::Average(size_t a, size_t b, bool robust) const { return Average(Ranges{{a, b}}, robust); }

double ForecastSeries::Average(const std::vector<std::pair<size_t, size_t>>& ranges, bool robust) const {
  size_t count = 0;
  for (auto [a, b] : ranges) count += b > a ? b - a : 0;
  if (count == 0) return 0;
  if (!robust) {
    double sum = 0;
    for (auto [a, b] : ranges)
      if (b > a) sum += prefix_[b] - prefix_[a];
    return sum / static_cast<double>(count);
  }
  size_t stride = CeilDiv(count, kMaxMedianValues);
  scratch_.clear();
  for (auto [a, b] : ranges)
    for (size_t i = a; i < b; i += stride) scratch_.push_back(values_[i]);
  auto mid = scratch_.begin() + static_cast<std::ptrdiff_t>(scratch_.size() / 2);
  std::nth_element(scratch_.begin(), mid, scratch_.end());
  double upper = *mid;
  if (scratch_.size() % 2 == 1) return upper;
  double lower = *std::max_element(scratch_.begin(), mid);
  return 0.5 * (lower + upper);
}

bool CanForecast(size_t origin, size_t h, const ForecastParams& p) {
  auto t = static_cast<int64_t>(origin);
  auto hh = static_cast<int64_t>(h);
  auto period = static_cast<int64_t>(p.period);
  auto l = static_cast<int64_t>(p.level_window);
  auto cycles = static_cast<int64_t>(p.cycles);
  if (h == 0) return false;
  switch (p.method) {
    case ForecastMethod::kNaive: return true;
    case ForecastMethod::kSeasonalNaive: return period > 0 && t + hh - static_cast<int64_t>(CeilDiv(h, p.period)) * period >= 0;
    case ForecastMethod::kLocalMean:
      return p.mean_window > 0 && l > 0 && t + 1 >= std::max(l, static_cast<int64_t>(p.mean_window));
    case ForecastMethod::kSeasonalMean: {
      if (period <= 0 || l <= 0 || cycles <= 0) return false;
      auto first = static_cast<int64_t>(CeilDiv(h, p.period));
      bool target_history = t + hh - (first + cycles - 1) * period - static_cast<int64_t>(p.smooth) >= 0;
      bool level_history = t + 1 - l - cycles * period >= 0;
      return target_history && level_history;
    }
  }
  return false;
}

double Forecast(const ForecastSeries& y, size_t origin, size_t h, const ForecastParams& p) {
  switch (p.method) {
    case ForecastMethod::kNaive: return y.at(origin);
    case ForecastMethod::kSeasonalNaive: return y.at(origin + h - CeilDiv(h, p.period) * p.period);
    case ForecastMethod::kSeasonalMean:
    case ForecastMethod::kLocalMean: {
      Parts parts = ModelParts(y, origin, h, p);
      return parts.base + p.beta * parts.deviation;
    }
  }
  return 0;
}

}  // namespace kraken::temporal
