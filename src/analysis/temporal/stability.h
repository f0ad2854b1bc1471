// Temporal stability of a demand series (used by the disaggregation and MIG advice) (GPU busy per bin): how much it varies and
// whether it repeats. Steady or periodic demand is predictable, so a pool can reserve
// for it or interleave it with others; erratic demand is not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/explanation.h"

namespace kraken::temporal {

struct TemporalStability {
  bool measured = false;  // needs kMinBins bins
  int64_t bins = 0;
  double bin_s = 0;
  double mean = 0;
  double p95 = 0;
  double cv = 0;           // stddev / mean
  double burst_ratio = 0;  // p95 / mean
  // Mean of the busiest of ten equal stretches of the window: the share of a GPU the
  // workload needs over a stretch, not over a single bin.
  double busiest_tenth = 0;
  // Highest autocorrelation peak at a lag (up to half the series) beyond the point where
  // the autocorrelation first drops to zero, and that lag as a period.
  double periodicity = 0;
  double period_s = 0;
  // max(1 - min(cv, 1), periodicity): steady or repeating demand is predictable.
  double predictability = 0;
};

inline constexpr int64_t kMinTemporalBins = 8;

TemporalStability AnalyzeStability(const std::vector<double>& bins, double bin_s);

Explanation ExplainStability(const TemporalStability& t, const std::string& basis);

}  // namespace kraken::temporal
