// How often the data was sampled, measured from Prometheus, so that an auto step is never
// finer than the data: a 60 s step over series scraped every 300 s repeats each sample
// five times and costs five times the points (issue 18: 120.6 s instead of 18.5 s for a
// 1,000-node week).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "promql/prometheus_client.h"

namespace kraken::promql {

// The smallest gap between two distinct raw sample times of any one series, in whole
// seconds, from the answer of a range query over `timestamp(selector)` (each value is the
// time of the sample the instant saw). 0 when no series shows two distinct samples.
// Mixed intervals give the smallest; a probe step coarser than the interval gives at
// least the probe step, which is all the caller needs.
int64_t SmallestSampleIntervalS(const std::vector<RangeSeries>& timestamp_series);

// The step a query actually uses and why (shown in the output).
struct StepChoice {
  int64_t step_s = 0;
  int64_t sample_interval_s = 0;  // 0 = not measured (explicit step, or no samples in the probe)
  std::string reason;
};

// `asked_step_s` != 0 wins as is. Otherwise (auto): max(the range rule's step, the
// sample interval measured over a short probe at the range's end, from
// `timestamp_query`: timestamp() of the raw series, one term per metric name), at most
// the range.
Result<StepChoice> ChooseStep(PrometheusClient& client, const std::string& timestamp_query, int64_t end_s,
                              int64_t range_s, int64_t asked_step_s, int64_t points_per_window);

}  // namespace kraken::promql
