#include "analysis/cost/instance_recommend.h"

#include <gtest/gtest.h>

#include "model/device_catalog.h"

namespace kraken::cost {
namespace {

MeasuredDemand A100Trainer() {
  MeasuredDemand d;
  d.name = "trainer";
  d.gpu_model = "a100-40gb-sxm";
  d.gpus = 1;
  d.gpu_busy = 0.8;
  d.busy_measured = true;
  d.memory_measured = true;
  d.memory_peak_bytes = 30.0 * 1024 * 1024 * 1024;
  d.compute_share = 0.6;
  d.memory_share = 0.3;
  return d;
}

TEST(InstanceRecommend, RooflineRatioBetweenModels) {
  MeasuredDemand d = A100Trainer();
  std::string basis;
  // A100 -> H100 SXM: tensor 312/989.4, DRAM 1555/3350; 10 % other kernels unchanged.
  double expected = 0.2 + 0.8 * (0.6 * 312 / 989.4 + 0.3 * 1555.0 / 3350 + 0.1);
  EXPECT_NEAR(RooflineTimeRatio(d, *FindDeviceSpec("a100-40gb-sxm"), *FindDeviceSpec("h100-sxm"), &basis), expected,
              1e-9);
  EXPECT_NE(basis.find("roofline a100-40gb-sxm -> h100-sxm"), std::string::npos) << basis;
}

TEST(InstanceRecommend, RanksByCostOfWorkWithinBudget) {
  MeasuredDemand d = A100Trainer();
  RecommendOptions options;
  options.budget_usd_per_month = 5000;
  auto r = RecommendInstances(d, BuiltinPriceCatalog(), BuiltinPriceCatalog(), options);
  ASSERT_TRUE(r.ok());
  // Current: the cheapest a100-40gb-sxm instance, Lambda's 1x at $1.99/h.
  ASSERT_TRUE(r->current.has_value());
  EXPECT_EQ(r->current->instance.instance, "gpu_1x_a100_sxm4");
  ASSERT_FALSE(r->ranked.empty());
  EXPECT_EQ(r->ranked[0].instance.instance, "gpu_1x_a100_sxm4");
  EXPECT_TRUE(r->ranked[0].current);
  EXPECT_DOUBLE_EQ(*r->ranked[0].savings_fraction, 0);
  for (const Candidate& c : r->ranked) {
    EXPECT_LE(c.usd_per_month, 5000);
    EXPECT_GE(c.usd_per_work_hour, r->ranked[0].usd_per_work_hour);
  }
  // Only 1-GPU instances at most $5000/month ($6.85/h) remain; the 8-GPU ones are over.
  EXPECT_GT(r->rejected_budget, 0);
  EXPECT_EQ(r->rejected_memory, 1);  // the A10's 24 GiB cannot hold 30 GiB x 1.1
  // Spot: the GCP H100 at $6.571/h is the spot-priced candidate.
  options.spot = true;
  options.budget_usd_per_month = 0;
  auto spot = RecommendInstances(d, FilterByProvider(BuiltinPriceCatalog(), "gcp"), BuiltinPriceCatalog(), options);
  ASSERT_TRUE(spot.ok());
  ASSERT_EQ(spot->ranked.size(), 1u);
  EXPECT_TRUE(spot->ranked[0].spot_price);
  EXPECT_DOUBLE_EQ(spot->ranked[0].usd_per_hour, 6.571);
  EXPECT_LT(*spot->ranked[0].savings_fraction, 0);  // dearer per unit of work than $1.99/h
}

TEST(InstanceRecommend, UnknownCurrentInstanceIsRefused) {
  RecommendOptions options;
  options.current_instance = "m5.large";
  auto r = RecommendInstances(A100Trainer(), BuiltinPriceCatalog(), BuiltinPriceCatalog(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--current 'm5.large' is not an instance of the price catalog");
}

}  // namespace
}  // namespace kraken::cost
