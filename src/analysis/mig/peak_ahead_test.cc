// MIG rebalancing ahead of a forecast peak, on a daily pattern derived from real data
// (genai_daily_demand_testing.h: the GenAI serving pods' summed duty cycle as an H100's
// 1g.10gb instances), repeated day after day: a week of history.
#include "analysis/mig/peak_ahead.h"

#include <gtest/gtest.h>

#include "analysis/mig/genai_daily_demand_testing.h"

namespace kraken::mig {
namespace {

constexpr int64_t kAheadStepS = 300;
constexpr int64_t kAheadDay0 = 1'700'006'400;  // a UTC midnight: day 0 of the history

// The week of history before `now_s` (both ends included), one value per step.
InstanceHistory AheadHistory(const std::vector<int>& day, int64_t now_s) {
  InstanceHistory h;
  std::vector<double>& counts = h.counts["1g.10gb"];
  for (int64_t t = now_s - 7 * 86400; t <= now_s; t += kAheadStepS) {
    h.times_s.push_back(t);
    counts.push_back(day[static_cast<size_t>(((t - kAheadDay0) % 86400) / kAheadStepS)]);
  }
  return h;
}

TEST(MigPeakAhead, LatestInstancesAreTheLastAnsweredStep) {
  InstanceHistory h;
  h.times_s = {0, 300, 600, 900};
  h.counts["1g.10gb"] = {1, 3, 0, 0};  // nothing answered at the last two steps
  h.counts["3g.40gb"] = {0, 1, 0, 0};
  EXPECT_EQ(LatestInstances(h), (std::map<std::string, int>{{"1g.10gb", 3}, {"3g.40gb", 1}}));
  EXPECT_TRUE(LatestInstances(InstanceHistory{}).empty());
}

TEST(MigPeakAhead, LayoutNamesParseBack) {
  auto layout = ParseMigLayoutName("3g.40gb-x2.1g.10gb-x1");
  ASSERT_TRUE(layout);
  EXPECT_EQ(*layout, (std::map<std::string, int>{{"1g.10gb", 1}, {"3g.40gb", 2}}));
  EXPECT_FALSE(ParseMigLayoutName("1g.10gb-x1.3g.40gb-x2"));  // not the order MigLayoutName writes
  EXPECT_TRUE(ParseMigLayoutName("none")->empty());
  EXPECT_FALSE(ParseMigLayoutName("all-1g.5gb"));
  EXPECT_FALSE(ParseMigLayoutName("mixed"));
  EXPECT_FALSE(ParseMigLayoutName("3g.40gb-x2.1g.10gb-x1x"));
}

TEST(MigPeakAhead, ProposedBeforeTheDailyRiseAndOncePerWindow) {
  std::vector<int> day = kraken::testing::GenAiDailyInstances();
  // The derived day: 1 instance in the afternoon trough, 7 at the peak; the first step
  // that needs more than 2 instances (the rise) is 00:45.
  EXPECT_EQ(day[0], 1);
  EXPECT_EQ(*std::max_element(day.begin(), day.end()), 7);
  EXPECT_EQ(day[16 * 12], 1);
  size_t rise = 0;
  while (rise < day.size() && day[rise] <= 2) ++rise;
  ASSERT_EQ(rise * kAheadStepS, 2700u);
  // Passes every 15 min from 18:00 of day 7 on a node whose layout serves the trough
  // (1g.10gb-x2), which measured demand (the week's pods) also asks for; window 24 h,
  // lookahead 1 h.
  RebalanceOptions options;
  const std::string current = "1g.10gb-x2";
  const std::map<std::string, int> wanted = {{"1g.10gb", 2}};
  RebalanceState state;
  int64_t changed_at = -1;
  std::string reason, layout;
  const int64_t day8 = kAheadDay0 + 8 * 86400;
  for (int64_t now = day8 - 6 * 3600; now < day8 + 86400 && changed_at < 0; now += 900) {
    InstanceHistory history = AheadHistory(day, now);
    auto forecasts = ForecastInstances(history, *temporal::ParseHorizon("1h"), options.window_s);
    ASSERT_TRUE(forecasts.at("1g.10gb").reason.empty()) << forecasts.at("1g.10gb").reason;
    RebalanceDecision d = DecideRebalanceAhead(state, current, wanted, forecasts, now, 3600, options);
    if (d.action == RebalanceAction::kChange) {
      changed_at = now;
      reason = d.reason;
      layout = d.layout;
    } else {
      EXPECT_EQ(d.action, RebalanceAction::kKeep) << d.reason;
    }
    state = d.next;
  }
  // Proposed at 23:45, an hour (the lookahead) before the rise, for the day's peak; every
  // pass before kept the trough layout measured demand asks for.
  ASSERT_GE(changed_at, 0);
  EXPECT_EQ(changed_at, day8 - 900);
  EXPECT_EQ(reason,
            "the forecast (seasonal-naive) has 1g.10gb demand at 3 instances at 00:45 UTC (in 60 min), above the 2 "
            "1g.10gb-x2 serves; 1g.10gb-x7 serves the forecast peak of the next 1440 min; proposed ahead of the rise");
  EXPECT_LT(changed_at, day8 + static_cast<int64_t>(rise) * kAheadStepS);
  EXPECT_GE(changed_at, day8 + static_cast<int64_t>(rise) * kAheadStepS - 3600);
  EXPECT_EQ(layout, "1g.10gb-x7");
  EXPECT_EQ(state.last_change_s, changed_at);
  // An hour later (the node still labelled the old layout), the window rate-limits it.
  InstanceHistory later = AheadHistory(day, changed_at + 3600);
  RebalanceDecision again = DecideRebalanceAhead(state, current, wanted,
                                                 ForecastInstances(later, *temporal::ParseHorizon("1h"), options.window_s),
                                                 changed_at + 3600, 3600, options);
  EXPECT_EQ(again.action, RebalanceAction::kRateLimited) << again.reason;
  // In the trough, pods holding a single instance do not cut the layout before the peak the
  // window's forecast needs it for.
  InstanceHistory trough = AheadHistory(day, day8 - 6 * 3600);
  RebalanceDecision no_cut = DecideRebalanceAhead(
      RebalanceState{}, current, {{"1g.10gb", 1}}, ForecastInstances(trough, *temporal::ParseHorizon("1h"), options.window_s),
      day8 - 6 * 3600, 3600, options);
  EXPECT_EQ(no_cut.action, RebalanceAction::kKeep) << no_cut.reason;
  // The reason names the forecast that keeps the layout, not measured demand.
  EXPECT_EQ(no_cut.reason,
            "the forecast peak of the next 1440 min (1g.10gb: 2 instances by seasonal-naive) needs the current layout "
            "1g.10gb-x2; measured demand alone asks for 1g.10gb-x1");
  // On the new layout nothing more is proposed.
  RebalanceDecision kept = DecideRebalanceAhead(state, layout, wanted,
                                                ForecastInstances(later, *temporal::ParseHorizon("1h"), options.window_s),
                                                changed_at + 3600, 3600, options);
  EXPECT_NE(kept.action, RebalanceAction::kChange) << kept.reason;
}

}  // namespace
}  // namespace kraken::mig
