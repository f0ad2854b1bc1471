// A daily pattern of MIG demand derived from real data, for the tests of forecast-driven
// rebalancing (analysis/mig/peak_ahead_test.cc, cli/prometheus_mig_forecast_test.cc): the
// GPU duty cycle of Alibaba's GenAI serving pods (../shared/data/alibaba-genai-v2026, 143
// pods every ~57 s over 22.8 h), summed over the pods per 5-minute step (busy GPUs) and
// scaled so that 20 busy GPUs are the 7 one-slice instances of an A100 or H100 (1 to 7);
// the hour the trace does not cover holds its last value. Day offsets from the trace's
// first sample; the tests repeat the day to make weeks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <vector>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::testing {

inline constexpr int64_t kGenAiDemandStepS = 300;

// Instances needed at each 5-minute step of the day (288 values).
inline std::vector<int> GenAiDailyInstances() {
  auto profiles = ImportFile(BuiltinImporters(), DataPath("alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv.gz"));
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  std::vector<int> day(86400 / kGenAiDemandStepS, 1);
  if (!profiles.ok()) return day;
  int64_t first_ns = INT64_MAX;
  for (const Profile& p : *profiles)
    for (const Series& s : p.series)
      if (!s.samples.empty()) first_ns = std::min(first_ns, s.samples.front().time_ns);
  // Per step: the pods' duty cycles summed, averaged over the step's timestamps.
  std::vector<double> busy_pct(day.size(), 0);
  std::vector<std::set<int64_t>> stamps(day.size());
  for (const Profile& p : *profiles)
    for (const Series& s : p.series)
      for (const Sample& sample : s.samples) {
        size_t step = static_cast<size_t>((sample.time_ns - first_ns) / 1'000'000'000 / kGenAiDemandStepS);
        if (step >= day.size()) continue;
        busy_pct[step] += sample.value;
        stamps[step].insert(sample.time_ns);
      }
  for (size_t i = 0; i < day.size(); ++i) {
    if (stamps[i].empty()) {
      day[i] = i > 0 ? day[i - 1] : 1;
      continue;
    }
    double busy_gpus = busy_pct[i] / 100 / static_cast<double>(stamps[i].size());
    day[i] = std::clamp(static_cast<int>(std::ceil(busy_gpus * 7 / 20)), 1, 7);
  }
  return day;
}

}  // namespace kraken::testing
