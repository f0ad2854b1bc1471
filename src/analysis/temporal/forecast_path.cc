#include "analysis/temporal/forecast_path.h"

#include <algorithm>
#include <cmath>

namespace kraken::temporal {
namespace {

// Quantile q of sorted values, linear between order statistics.
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t i = static_cast<size_t>(std::floor(pos));
  size_t j = std::min(i + 1, sorted.size() - 1);
  return sorted[i] + (pos - static_cast<double>(i)) * (sorted[j] - sorted[i]);
}

// The signed errors y[t + h] - forecast(t, h) over up to `max_origins` origins in
// [first, last] whose target was observed (not interpolated).
std::vector<double> Residuals(const RegularGrid& grid, const ForecastSeries& y, size_t h, const ForecastParams& p,
                              size_t first, size_t last, size_t max_origins) {
  std::vector<double> out;
  if (last < first) return out;
  size_t stride = std::max<size_t>(1, (last - first + 1 + max_origins - 1) / max_origins);
  for (size_t t = first; t <= last; t += stride) {
    if (!CanForecast(t, h, p) || t + h >= grid.size() || !grid.observed[t + h]) continue;
    out.push_back(grid.values[t + h] - Forecast(y, t, h, p));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<size_t> LeadTimes(size_t horizon_steps, size_t max_points) {
  std::vector<size_t> out;
  size_t stride = std::max<size_t>(1, (horizon_steps + max_points - 1) / std::max<size_t>(1, max_points));
  for (size_t h = stride; h <= horizon_steps; h += stride) out.push_back(h);
  if (out.empty() || out.back() != horizon_steps) out.push_back(horizon_steps);
  return out;
}

}  // namespace

ForecastPath ComputeForecastPath(const RegularGrid& grid, size_t horizon_steps, const ForecastParams& params,
                                 const ForecastPathOptions& options) {
  ForecastPath path;
  if (grid.size() < 2 || horizon_steps == 0) return path;
  ForecastSeries y(grid.values);
  const size_t last = grid.size() - 1;
  const size_t split = static_cast<size_t>(static_cast<double>(grid.size()) * (1 - options.test_fraction));
  size_t covered80 = 0, covered95 = 0;
  for (size_t h : LeadTimes(horizon_steps, options.max_points)) {
    if (!CanForecast(last, h, params) || h > last) continue;
    std::vector<double> errors = Residuals(grid, y, h, params, 0, last - h, options.max_origins);
    if (errors.size() < 10) continue;  // too few to say anything about the spread
    ForecastPoint point;
    point.steps = h;
    point.at = grid.TimeAt(last) + static_cast<int64_t>(h) * grid.step;
    point.value = Forecast(y, last, h, params);
    point.lo80 = point.value + Quantile(errors, 0.10);
    point.hi80 = point.value + Quantile(errors, 0.90);
    point.lo95 = point.value + Quantile(errors, 0.025);
    point.hi95 = point.value + Quantile(errors, 0.975);
    point.residuals = errors.size();
    path.points.push_back(point);
    // Back-test: quantiles from origins whose targets lie in the head, scored on the tail.
    if (split <= h + 1 || split >= last) continue;
    std::vector<double> head = Residuals(grid, y, h, params, 0, split - h - 1, options.max_origins);
    std::vector<double> tail = Residuals(grid, y, h, params, split - h, last - h, options.max_origins);
    if (head.size() < 10) continue;
    double lo80 = Quantile(head, 0.10), hi80 = Quantile(head, 0.90);
    double lo95 = Quantile(head, 0.025), hi95 = Quantile(head, 0.975);
    for (double e : tail) {
      ++path.coverage_targets;
      covered80 += e >= lo80 && e <= hi80;
      covered95 += e >= lo95 && e <= hi95;
    }
  }
  if (path.coverage_targets > 0) {
    path.coverage80 = static_cast<double>(covered80) / static_cast<double>(path.coverage_targets);
    path.coverage95 = static_cast<double>(covered95) / static_cast<double>(path.coverage_targets);
  }
  return path;
}

}  // namespace kraken::temporal
