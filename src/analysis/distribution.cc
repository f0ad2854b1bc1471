#include "analysis/distribution.h"

#include <algorithm>
#include <cmath>

namespace kraken {

double QuantileSorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Distribution Summarize(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.count = static_cast<int64_t>(values.size());
  for (double v : values) d.sum += v;
  d.mean = d.sum / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - d.mean) * (v - d.mean);
  d.stddev = std::sqrt(sq / static_cast<double>(values.size()));
  d.min = values.front();
  d.max = values.back();
  d.p50 = QuantileSorted(values, 0.50);
  d.p90 = QuantileSorted(values, 0.90);
  d.p99 = QuantileSorted(values, 0.99);
  return d;
}

}  // namespace kraken
