#include "analysis/cost/budget_forecast.h"

#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::cost {
namespace {

TEST(BudgetForecast, AllocationRatesPerStepTeamAndTotal) {
  // Steps at 1000, 1060, 1120, 1180. ml: an A100 answering at the first and third, and a
  // 1g slice at every step; web: a T4 (no price) at the second; bits past the steps are
  // ignored.
  std::vector<AllocatedGpu> gpus = {
      {"ml", "ml", "trainer", "GPU-a", "a100-40gb-sxm", 1.0, 2, 2, {true, false, true, false}},
      {"ml", "ml", "notebook", "GPU-a/13", "a100-40gb-sxm", 1.0 / 7, 4, 4, {true, true, true, true}},
      {"web", "web", "infer", "GPU-b", "t4", 1.0, 1, 0, {false, true, false, false, true}},
  };
  TeamAllocationRates rates = AllocationRates(gpus, 1000, 60, 4, {{"a100-40gb-sxm", 2.0}}, std::nullopt);
  ASSERT_EQ(rates.teams.size(), 2u);
  const AllocationRate& ml = rates.teams.at("ml");
  EXPECT_EQ(ml.times_s, (std::vector<int64_t>{1000, 1060, 1120, 1180}));
  EXPECT_DOUBLE_EQ(ml.gpus_held[0], 1 + 1.0 / 7);
  EXPECT_DOUBLE_EQ(ml.gpus_held[1], 1.0 / 7);
  EXPECT_DOUBLE_EQ(ml.usd_per_hour[2], 2 * (1 + 1.0 / 7));
  const AllocationRate& web = rates.teams.at("web");
  EXPECT_EQ(web.gpus_held, (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(web.usd_per_hour, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(rates.total.gpus_held[1], 1 + 1.0 / 7);
}

TEST(BudgetForecast, ConstantAllocationIsItsOwnMonthWithNoSpread) {
  AllocationRate rate;
  for (int64_t k = 0; k < 7 * 288; ++k) {
    rate.times_s.push_back(1'700'000'000 + k * 300);
    rate.gpus_held.push_back(2);
    rate.usd_per_hour.push_back(3);
  }
  MonthForecast f = ForecastMonth(rate, *temporal::ParseHorizon("24h"));
  ASSERT_TRUE(f.available) << f.reason;
  EXPECT_DOUBLE_EQ(f.usd, 3 * 720);
  EXPECT_DOUBLE_EQ(f.low_usd, 3 * 720);
  EXPECT_DOUBLE_EQ(f.high_usd, 3 * 720);
  EXPECT_DOUBLE_EQ(f.gpu_hours, 2 * 720);
  // An hour of history cannot be scored a day ahead.
  rate.times_s.resize(12);
  rate.gpus_held.resize(12);
  rate.usd_per_hour.resize(12);
  MonthForecast short_history = ForecastMonth(rate, *temporal::ParseHorizon("24h"));
  EXPECT_FALSE(short_history.available);
  EXPECT_FALSE(short_history.reason.empty());
}

TEST(BudgetForecast, HeliosVirtualClusterMonth) {
  // The GPUs Helios Earth's vchbv ran in its third week of May 2020, every 5 minutes, at
  // $2 per GPU-hour.
  auto profiles = ImportFile(BuiltinImporters(),
                             kraken::testing::DataPath("helios/earth_vc_sequences/vchbv_cluster_sequence_vc.csv.gz"));
  ASSERT_TRUE(profiles.ok()) << profiles.status().message();
  AllocationRate rate;
  for (const Profile& p : *profiles)
    for (const Series& s : p.series)
      if (s.source_name == "running_gpu_num")
        for (size_t m = 14 * 1440; m <= 21 * 1440 && m < s.samples.size(); m += 5) {
          rate.times_s.push_back(s.samples[m].time_ns / 1'000'000'000);
          rate.gpus_held.push_back(s.samples[m].value);
          rate.usd_per_hour.push_back(2 * s.samples[m].value);
        }
  ASSERT_EQ(rate.times_s.size(), 7u * 288 + 1);
  MonthForecast f = ForecastMonth(rate, *temporal::ParseHorizon("24h"));
  ASSERT_TRUE(f.available) << f.reason;
  // The back-test chose the naive forecast a day ahead: the week's last value, 48 GPUs,
  // held for the month; the interval is the mean of its 2.5 % / 97.5 % quantiles.
  EXPECT_EQ(f.method, "naive");
  EXPECT_EQ(f.period_s, 0);
  EXPECT_EQ(rate.gpus_held.back(), 48);
  EXPECT_DOUBLE_EQ(f.gpu_hours, 48 * 720);
  EXPECT_DOUBLE_EQ(f.usd, 2 * 48 * 720);
  EXPECT_NEAR(f.low_usd, 17131.5, 1e-6);
  EXPECT_NEAR(f.high_usd, 127557.75, 1e-6);
  EXPECT_NEAR(f.coverage95, 0.9921, 1e-4);
}

}  // namespace
}  // namespace kraken::cost
