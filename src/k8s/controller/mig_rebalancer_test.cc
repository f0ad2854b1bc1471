// MIG rebalancing against the loopback fake API server: the state lives on the node, the
// recommendation is an annotation, and only --apply-mig writes nvidia.com/mig.config. The
// layouts are the ones analysis/mig/mig_rebalance_test.cc plans from real inputs (the
// H100 capture's idle phase; with the two ResNet-50 traces added).
#include "k8s/controller/mig_rebalancer.h"

#include <gtest/gtest.h>

#include "k8s/client/fake_api_server.h"

namespace kraken::k8s {
namespace {

constexpr char kSmallLayout[] = "1g.10gb-x1";
constexpr char kGrownLayout[] = "1g.10gb-x1.3g.40gb-x2";
constexpr char kNodePath[] = "/api/v1/nodes/h100-1";
constexpr int64_t kT0 = 1'700'000'000;

testing::FakeObject MeasuredNode() {
  testing::FakeObject node;
  node.labels["kraken.io/mig-layout"] = kSmallLayout;
  return node;
}

TEST(MigRebalancer, StateRoundTripsAndBadStateStartsOver) {
  mig::RebalanceState s{kGrownLayout, kT0, kT0 - 86400};
  EXPECT_EQ(FormatRebalanceState(s), "v1;pending=1g.10gb-x1.3g.40gb-x2;since=1700000000;changed=1699913600");
  EXPECT_EQ(ParseRebalanceState(FormatRebalanceState(s)), s);
  EXPECT_EQ(ParseRebalanceState("v1"), mig::RebalanceState{});
  EXPECT_EQ(ParseRebalanceState("v2;changed=5"), mig::RebalanceState{});
  EXPECT_EQ(ParseRebalanceState("v1;pending=x"), mig::RebalanceState{});  // no since
  EXPECT_EQ(ParseRebalanceState("v1;changed=-4"), mig::RebalanceState{});
}

TEST(MigRebalancer, RecommendsAfterTheHoldAndLabelsOnlyWithApplyMig) {
  testing::FakeApiServer api;
  api.Add(kNodePath, MeasuredNode());
  KubeClient client(api.Config());
  mig::RebalanceOptions options;  // hold 30 min, window 24 h
  auto first = RebalanceNodeMig(client, "h100-1", kGrownLayout, kT0, options, /*apply_mig=*/false);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->decision.action, mig::RebalanceAction::kHold);
  EXPECT_EQ(first->current, kSmallLayout);
  EXPECT_EQ(api.Annotation(kNodePath, kMigRebalanceKey), "v1;pending=1g.10gb-x1.3g.40gb-x2;since=1700000000");
  EXPECT_EQ(api.Annotation(kNodePath, kMigRecommendationKey),
            "1g.10gb-x1.3g.40gb-x2 (hold: demand has asked for 1g.10gb-x1.3g.40gb-x2 instead of 1g.10gb-x1 for 0 min "
            "of the 30 min hold)");
  // 30 min later, without --apply-mig: recommended, no label.
  auto second = RebalanceNodeMig(client, "h100-1", kGrownLayout, kT0 + 1800, options, false);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->decision.action, mig::RebalanceAction::kChange);
  EXPECT_FALSE(second->labelled);
  EXPECT_EQ(api.Annotation(kNodePath, kMigRebalanceKey), "v1;changed=1700001800");
  for (const testing::Recorded& r : api.TakeRequests())
    EXPECT_EQ(r.body.find(kMigConfigLabel), std::string::npos) << r.body;
  // A new node with --apply-mig: the change is the mig-manager's label.
  api.Add(kNodePath, MeasuredNode());
  ASSERT_TRUE(RebalanceNodeMig(client, "h100-1", kGrownLayout, kT0, options, true).ok());
  auto applied = RebalanceNodeMig(client, "h100-1", kGrownLayout, kT0 + 1800, options, true);
  ASSERT_TRUE(applied.ok());
  EXPECT_TRUE(applied->labelled);
  std::vector<testing::Recorded> requests = api.TakeRequests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests.back().body, R"({"metadata":{"labels":{"nvidia.com/mig.config":"1g.10gb-x1.3g.40gb-x2"}}})");
  // The label is now the current layout; demand shrinking back is held, then rate-limited.
  auto back = RebalanceNodeMig(client, "h100-1", kSmallLayout, kT0 + 1800 + 300, options, true);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->current, kGrownLayout);
  EXPECT_EQ(back->decision.action, mig::RebalanceAction::kHold);
  auto limited = RebalanceNodeMig(client, "h100-1", kSmallLayout, kT0 + 1800 + 3600, options, true);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->decision.action, mig::RebalanceAction::kRateLimited);
  EXPECT_FALSE(limited->labelled);
  // A node the API server does not know: the error names it.
  auto missing = RebalanceNodeMig(client, "gone", kGrownLayout, kT0, options, true);
  EXPECT_FALSE(missing.ok());
}

TEST(MigRebalancer, AheadOfAForecastRiseTheRecommendationSaysWhy) {
  // A forecast (analysis/mig/peak_ahead_test.cc makes real ones) of 1g.10gb demand: one
  // instance for two hours, then three from kT0 + 2 h, every 15 min for a day.
  MigForecastInput ahead;
  ahead.wanted = {{"1g.10gb", 1}};
  ahead.lookahead_s = 3600;
  mig::InstanceForecast& f = ahead.forecasts["1g.10gb"];
  f.method = "seasonal-naive";
  for (int k = 1; k <= 96; ++k) f.points.emplace_back(kT0 + k * 900, k * 900 < 7200 ? 1 : 3);
  testing::FakeApiServer api;
  api.Add(kNodePath, MeasuredNode());  // 1g.10gb-x1
  KubeClient client(api.Config());
  mig::RebalanceOptions options;
  // Two hours before the rise: beyond the lookahead, and measured demand is the current layout.
  auto early = RebalanceNodeMig(client, "h100-1", kSmallLayout, kT0, options, true, &ahead);
  ASSERT_TRUE(early.ok()) << early.status().message();
  EXPECT_EQ(early->decision.action, mig::RebalanceAction::kKeep);
  // An hour before: proposed now, labelled with --apply-mig, no hold.
  auto before = RebalanceNodeMig(client, "h100-1", kSmallLayout, kT0 + 3600, options, true, &ahead);
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(before->decision.action, mig::RebalanceAction::kChange);
  EXPECT_TRUE(before->labelled);
  EXPECT_EQ(api.Annotation(kNodePath, kMigRecommendationKey),
            "1g.10gb-x3 (change: the forecast (seasonal-naive) has 1g.10gb demand at 3 instances at 00:13 UTC (in 60 "
            "min), above the 1 1g.10gb-x1 serves; 1g.10gb-x3 serves the forecast peak of the next 1440 min; proposed "
            "ahead of the rise)");
  EXPECT_EQ(api.Annotation(kNodePath, kMigRebalanceKey), "v1;changed=1700003600");
  std::vector<testing::Recorded> requests = api.TakeRequests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests.back().body, R"({"metadata":{"labels":{"nvidia.com/mig.config":"1g.10gb-x3"}}})");
}

}  // namespace
}  // namespace kraken::k8s
