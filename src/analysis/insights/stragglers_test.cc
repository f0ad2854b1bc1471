// Stragglers on the 8 DLRM ranks of shared/data/kineto/param (the only complete
// multi-rank set) and on hand-built ranks.
#include "analysis/insights/stragglers.h"

#include <gtest/gtest.h>

#include "analysis/insights/insights_testing.h"

namespace kraken {
namespace {

struct RankSet {
  std::vector<Profile> profiles;
  std::vector<RankTimeline> timelines;
  std::vector<RankInput> inputs;
};

RankSet StragglerRanks(std::vector<Profile> profiles) {
  RankSet s;
  s.profiles = std::move(profiles);
  for (const Profile& p : s.profiles) s.timelines.push_back(AnalyzeTimeline(p));
  for (size_t i = 0; i < s.profiles.size(); ++i) s.inputs.push_back({&s.profiles[i], &s.timelines[i]});
  return s;
}

TEST(Stragglers, DlrmRank7ArrivesLastAndTheOthersWait) {
  RankSet set = StragglerRanks(testing::ImportAllProfiles("kineto/param/dlrm_kineto.tar.gz"));
  ASSERT_EQ(set.profiles.size(), 8u);
  const StragglerReport r = FindStragglers(set.inputs);
  EXPECT_EQ(r.collectives_matched, 8);
  EXPECT_EQ(r.collectives_unmatched, 0);
  ASSERT_TRUE(r.straggler.has_value());
  const RankFigures& s = r.ranks[*r.straggler];
  EXPECT_EQ(s.rank, 7);
  EXPECT_EQ(s.last_arrivals, 5);
  EXPECT_EQ(s.comm_wait_ns, 1'529'000);
  EXPECT_EQ(r.since_collective, 0);
  EXPECT_EQ(r.since_step, 10);
  // The others wait 6.468 ms on average; rank 1 waits longest (11.119 ms).
  EXPECT_EQ(r.others_mean_wait_ns, 6'468'142);
  for (const RankFigures& f : r.ranks) {
    if (f.rank == 1) {
      EXPECT_EQ(f.comm_wait_ns, 11'119'000);
    }
  }
  // Its GPU compute is like the others' (99.2 % of their median): the delay is not GPU work.
  EXPECT_NEAR(r.compute_vs_others_pct, 99.2, 0.05);
  EXPECT_NE(r.evidence.find("rank 7 arrived last at 5 of 8 collectives"), std::string::npos) << r.evidence;
}

// A rank whose collective kernels last `durations` (one all-reduce every 1 ms).
Profile CollectiveRank(int64_t rank, const std::vector<TimeNs>& durations) {
  Profile p;
  p.metadata.rank = rank;
  const StringId name = p.strings.Intern("ncclKernel_AllReduce_RING_LL_Sum_float");
  for (size_t i = 0; i < durations.size(); ++i) {
    Kernel k;
    k.name = name;
    k.device = 0;
    k.stream = 20;
    k.start_ns = static_cast<TimeNs>(i) * 1'000'000;
    k.duration_ns = durations[i];
    p.kernels.push_back(k);
  }
  return p;
}

TEST(Stragglers, SinceIsWhereTheRankBecameTheLastToArrive) {
  // Rank 1 arrives last at collective 0 only (shortest kernel); rank 0 at 1..4.
  std::vector<Profile> ranks;
  ranks.push_back(CollectiveRank(0, {10'000, 5'000, 5'000, 5'000, 5'000}));
  ranks.push_back(CollectiveRank(1, {5'000, 12'000, 12'000, 12'000, 12'000}));
  RankSet set = StragglerRanks(std::move(ranks));
  const StragglerReport r = FindStragglers(set.inputs);
  ASSERT_TRUE(r.straggler.has_value());
  EXPECT_EQ(r.ranks[*r.straggler].rank, 0);
  EXPECT_EQ(r.ranks[0].last_arrivals, 4);
  EXPECT_EQ(r.since_collective, 1);
  EXPECT_EQ(r.ranks[1].comm_wait_ns, 4 * 7'000);  // rank 1 waited 7 µs at each of 1..4
  EXPECT_EQ(r.ranks[0].comm_wait_ns, 5'000);      // rank 0 waited at collective 0
}

TEST(Stragglers, OneRankOrNoneStandingOut) {
  std::vector<Profile> single;
  single.push_back(testing::ImportFirstProfile("kineto/hta/trace_diff/control/control.json.gz"));
  RankSet one = StragglerRanks(std::move(single));
  EXPECT_TRUE(FindStragglers(one.inputs).ranks.empty());
  // Two identical ranks: every collective is a tie, so nobody waits and nobody stands out.
  std::vector<Profile> pair;
  for (int i = 0; i < 2; ++i) pair.push_back(testing::ImportFirstProfile("kineto/hta/trace_diff/control/control.json.gz"));
  RankSet twins = StragglerRanks(std::move(pair));
  const StragglerReport r = FindStragglers(twins.inputs);
  EXPECT_EQ(r.collectives_matched, 60);
  for (const RankFigures& f : r.ranks) EXPECT_EQ(f.comm_wait_ns, 0);
  for (const RankFigures& f : r.ranks) EXPECT_EQ(f.last_arrivals, 0);
  EXPECT_FALSE(r.straggler.has_value());
}

}  // namespace
}  // namespace kraken
