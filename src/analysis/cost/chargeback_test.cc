#include "analysis/cost/chargeback.h"

#include <gtest/gtest.h>

namespace kraken::cost {
namespace {

TEST(Chargeback, AllocatedUsedCostAndIdlePerTeam) {
  // A day at 60 s steps = 1440 samples. ml: a whole A100 busy 75 % and a 1g slice busy
  // 100 %; web: a T4 idle for half a day, price unknown.
  std::vector<AllocatedGpu> gpus = {
      {"ml", "ml", "trainer", "GPU-a", "a100-40gb-sxm", 1.0, 1440, 1440 * 0.75, {}},
      {"ml", "ml", "notebook", "GPU-a/13", "a100-40gb-sxm", MigShareOfGpu("1g.5gb"), 1440, 1440.0, {}},
      {"web", "web", "infer", "GPU-b", "t4", 1.0, 720, 0, {}},
  };
  Chargeback c = ComputeChargeback(gpus, 86400, 60, {{"a100-40gb-sxm", 2.0}}, std::nullopt, {{"ml", 1000.0}});
  ASSERT_EQ(c.teams.size(), 2u);
  const TeamCharge& ml = c.teams[0];
  EXPECT_EQ(ml.team, "ml");
  EXPECT_EQ(ml.pods, 2);
  EXPECT_DOUBLE_EQ(ml.allocated_gpu_hours, 24 + 24.0 / 7);
  EXPECT_DOUBLE_EQ(ml.used_gpu_hours, 18 + 24.0 / 7);
  EXPECT_DOUBLE_EQ(ml.cost_usd, 2 * (24 + 24.0 / 7));
  EXPECT_DOUBLE_EQ(ml.idle_cost_usd, 12);
  EXPECT_DOUBLE_EQ(*ml.projected_month_usd, 30 * 2 * (24 + 24.0 / 7));
  EXPECT_DOUBLE_EQ(*ml.budget_usd, 1000);
  const TeamCharge& web = c.teams[1];
  EXPECT_DOUBLE_EQ(web.allocated_gpu_hours, 12);
  EXPECT_DOUBLE_EQ(web.used_gpu_hours, 0);
  EXPECT_DOUBLE_EQ(web.cost_usd, 0);
  EXPECT_EQ(c.unpriced_models, std::vector<std::string>{"t4"});
  EXPECT_DOUBLE_EQ(c.total.allocated_gpu_hours, 36 + 24.0 / 7);
  EXPECT_EQ(c.total.pods, 3);
}

TEST(Chargeback, MigSharesAndBudgetFileErrors) {
  EXPECT_DOUBLE_EQ(MigShareOfGpu("3g.20gb"), 3.0 / 7);
  EXPECT_DOUBLE_EQ(MigShareOfGpu("7g.80gb"), 1.0);
  EXPECT_DOUBLE_EQ(MigShareOfGpu(""), 1.0);
  auto ok = ParseBudgets("team,monthly_usd\nml,5000\nweb, 250.5\n", "b.csv");
  ASSERT_TRUE(ok.ok());
  EXPECT_DOUBLE_EQ(ok->at("web"), 250.5);
  auto bad = ParseBudgets("team,monthly_usd\nml,lots\n", "b.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "b.csv:2: monthly_usd 'lots' is not a number in [0, 1e12]");
  auto twice = ParseBudgets("team,monthly_usd\nml,1\nml,2\n", "b.csv");
  EXPECT_EQ(twice.status().message(), "b.csv:3: team 'ml' is listed twice");
  EXPECT_EQ(ParseBudgets("name,usd\n", "b.csv").status().message(), "b.csv:1: the header must name team and monthly_usd");
}

}  // namespace
}  // namespace kraken::cost
