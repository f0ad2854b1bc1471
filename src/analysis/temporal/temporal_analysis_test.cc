#include "analysis/temporal/temporal_analysis.h"

#include <gtest/gtest.h>

#include "analysis/temporal/synthetic_series.h"

namespace kraken::temporal {
namespace {

TEST(TemporalAnalysis, ParsesHorizons) {
  EXPECT_EQ(ParseHorizon("1h")->amount, 3'600'000'000'000);
  EXPECT_EQ(ParseHorizon("24h")->amount, 86'400'000'000'000);
  EXPECT_EQ(ParseHorizon("90m")->amount, 5'400'000'000'000);
  EXPECT_EQ(ParseHorizon("0.5d")->amount, 43'200'000'000'000);
  EXPECT_EQ(ParseHorizon("1w")->amount, 604'800'000'000'000);
  EXPECT_EQ(ParseHorizon(" 30s ")->label, "30s");
  auto iterations = ParseHorizon("500it");
  ASSERT_TRUE(iterations);
  EXPECT_EQ(iterations->amount, 500);
  EXPECT_EQ(iterations->axis, SampleAxis::kIteration);
  for (const char* bad : {"", "h", "1", "0h", "-1h", "1x", "1e9w", "nanh"}) EXPECT_FALSE(ParseHorizon(bad)) << bad;
}

TEST(TemporalAnalysis, SeriesNamesTellEntitiesApart) {
  Series vc;
  vc.source_name = "running_gpu_num";
  vc.entity.labels["vc"] = "vc3sl";
  EXPECT_EQ(SeriesName(vc), "vc3sl/running_gpu_num");
  Series pod;
  pod.metric = Metric::kGpuUtilPct;
  pod.entity.pod = "23b8eba99c14e73d454503a55ae96989";
  EXPECT_EQ(SeriesName(pod), "pod 23b8eba9/gpu_util_pct");
  Series worker;
  worker.source_name = "batch_time_norm";
  worker.entity.labels = {{"job", "job_1"}, {"worker", "6"}};
  EXPECT_EQ(SeriesName(worker), "job_1 worker 6/batch_time_norm");
  Series gpu;
  gpu.metric = Metric::kPowerW;
  gpu.entity.gpu_index = 2;
  EXPECT_EQ(SeriesName(gpu), "gpu 2/power_w");
}

TEST(TemporalAnalysis, IterationSeriesGetNoTimeHorizons) {
  Series s;
  s.axis = SampleAxis::kIteration;
  testing::Noise noise(21);
  for (int i = 0; i < 3000; ++i) s.samples.push_back(Sample{i * 10, 400 + 20 * noise.Gaussian()});
  TemporalOptions options;
  options.horizons.push_back(*ParseHorizon("100it"));
  TemporalReport r = AnalyzeTemporal(s, options);
  ASSERT_TRUE(r.error.empty());
  EXPECT_EQ(r.grid.step, 10);
  EXPECT_EQ(r.periodicity.verdict, PeriodVerdict::kNoSignificantPeriod);
  EXPECT_TRUE(r.periodicity.calendar_lags.empty());  // no day on an iteration axis
  ASSERT_EQ(r.forecast.horizons.size(), 3u);
  EXPECT_FALSE(r.forecast.horizons[0].evaluated);
  EXPECT_EQ(r.forecast.horizons[0].reason, "series counts iterations, not time");
  ASSERT_TRUE(r.forecast.horizons[2].evaluated) << r.forecast.horizons[2].reason;
  EXPECT_EQ(r.forecast.horizons[2].steps, 10u);
  EXPECT_LT(r.forecast.horizons[2].mase, 0.9);  // white noise: a mean beats the last value
}

TEST(TemporalAnalysis, ASeriesWithoutAStepIsAnErrorNotACrash) {
  Series s;
  s.samples = {Sample{5, 1.0}, Sample{5, 2.0}};
  TemporalReport r = AnalyzeTemporal(s);
  EXPECT_EQ(r.error, "fewer than two distinct sample times: no time step");
  EXPECT_TRUE(r.forecast.horizons.empty());
}

}  // namespace
}  // namespace kraken::temporal
