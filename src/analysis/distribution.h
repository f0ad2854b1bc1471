// Summary statistics of a sample (step times, launch delays, kernel durations).
// Percentiles interpolate linearly between order statistics (numpy's default), so
// they can be checked against a one-line numpy computation.
#pragma once

#include <cstdint>
#include <vector>

namespace kraken {

struct Distribution {
  int64_t count = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double stddev = 0;  // population standard deviation
  double sum = 0;

  // Coefficient of variation (stddev / mean): kraken's measure of jitter.
  double cv() const { return mean != 0 ? stddev / mean : 0; }
};

Distribution Summarize(std::vector<double> values);

// The q-quantile (0..1) of already sorted values, linear interpolation.
double QuantileSorted(const std::vector<double>& sorted, double q);

}  // namespace kraken
