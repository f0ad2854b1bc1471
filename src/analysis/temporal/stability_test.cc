// Temporal stability: variation and periodicity of busy bins.
#include "analysis/temporal/stability.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/demand.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::temporal {
namespace {

TEST(TemporalStabilityTest, ConstantDemandIsSteadyAndPredictable) {
  TemporalStability t = AnalyzeStability(std::vector<double>(50, 0.4), 0.01);
  ASSERT_TRUE(t.measured);
  EXPECT_DOUBLE_EQ(t.mean, 0.4);
  EXPECT_NEAR(t.cv, 0, 1e-12);
  EXPECT_DOUBLE_EQ(t.periodicity, 0);
  EXPECT_NEAR(t.predictability, 1, 1e-12);
  EXPECT_DOUBLE_EQ(t.busiest_tenth, 0.4);
}

TEST(TemporalStabilityTest, SquareWaveShowsItsPeriod) {
  // On for 3 bins, off for 7: period 10 bins of 2 ms.
  std::vector<double> bins;
  for (int i = 0; i < 200; ++i) bins.push_back(i % 10 < 3 ? 1.0 : 0.0);
  TemporalStability t = AnalyzeStability(bins, 0.002);
  ASSERT_TRUE(t.measured);
  EXPECT_NEAR(t.mean, 0.3, 1e-12);
  EXPECT_NEAR(t.cv, std::sqrt(0.21) / 0.3, 1e-12);  // Bernoulli(0.3): sd = sqrt(p(1-p))
  EXPECT_NEAR(t.period_s, 0.020, 1e-12);
  // Biased autocorrelation at lag 10: (n - 10) / n of the lag-0 value.
  EXPECT_NEAR(t.periodicity, 190.0 / 200.0, 1e-12);
  EXPECT_DOUBLE_EQ(t.predictability, t.periodicity);
  EXPECT_NEAR(t.burst_ratio, 1 / 0.3, 1e-12);
}

TEST(TemporalStabilityTest, TooFewBinsAreNotMeasured) {
  EXPECT_FALSE(AnalyzeStability({1, 0, 1}, 1).measured);
  EXPECT_FALSE(AnalyzeStability({}, 1).measured);
}

TEST(TemporalStabilityTest, TbPluginResnetRepeatsOnceAStep) {
  auto profiles = ImportFile(
      BuiltinImporters(),
      kraken::testing::DataPath("kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(profiles.ok());
  const Profile& p = (*profiles)[0];
  auto demands = DeriveDemands(p, CharacterizeWorkload(p));
  ASSERT_EQ(demands.size(), 1u);
  TemporalStability t = AnalyzeStability(demands[0].busy_bins, demands[0].bin_s);
  ASSERT_TRUE(t.measured);
  // The busy pattern repeats every training step (median 176.273 ms): the strongest
  // autocorrelation peak is at 178 bins of 1 ms.
  EXPECT_NEAR(t.period_s, 0.178, 1e-9);
  EXPECT_NEAR(t.periodicity, 0.672864, 1e-6);
  EXPECT_NEAR(t.cv, 0.730990, 1e-6);
  EXPECT_NEAR(t.burst_ratio, 1.644078, 1e-6);
}

}  // namespace
}  // namespace kraken::temporal
