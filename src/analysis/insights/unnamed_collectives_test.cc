// The critical path, the stragglers and the kernel sequences count communication on all
// the evidence a trace carries (analysis/communication.h), not on kernel names: on the 8
// real DLRM ranks with every NCCL kernel renamed to a name of no family (what an NVLS or
// custom all-reduce kernel looks like to a name matcher), each gives the figures it gives
// with the names.
#include <gtest/gtest.h>

#include "analysis/insights/critical_path.h"
#include "analysis/insights/insights_testing.h"
#include "analysis/insights/kernel_sequences.h"
#include "analysis/insights/stragglers.h"
#include "base/text.h"

namespace kraken {
namespace {

constexpr char kDlrmRanks[] = "kineto/param/dlrm_kineto.tar.gz";

// Renames every kernel whose name says nccl; returns how many were renamed.
int64_t HideNcclNames(Profile* p) {
  const StringId neutral = p->strings.Intern("void custom_collective_kernel<float>(Params)");
  int64_t renamed = 0;
  for (Kernel& k : p->kernels) {
    if (!ContainsIgnoreCase(p->Name(k.name), "nccl")) continue;
    k.name = neutral;
    ++renamed;
  }
  return renamed;
}

std::vector<Profile> DlrmRanksWithoutNcclNames(int64_t* renamed) {
  std::vector<Profile> ranks = testing::ImportAllProfiles(kDlrmRanks);
  *renamed = 0;
  for (Profile& p : ranks) *renamed += HideNcclNames(&p);
  return ranks;
}

StragglerReport StragglersOf(const std::vector<Profile>& profiles) {
  std::vector<RankTimeline> timelines;
  for (const Profile& p : profiles) timelines.push_back(AnalyzeTimeline(p));
  std::vector<RankInput> inputs;
  for (size_t i = 0; i < profiles.size(); ++i) inputs.push_back({&profiles[i], &timelines[i]});
  return FindStragglers(inputs);
}

TEST(UnnamedCollectives, CriticalPathKeepsItsCommunicationShare) {
  const std::vector<Profile> named = testing::ImportAllProfiles(kDlrmRanks);
  int64_t renamed = 0;
  const std::vector<Profile> unnamed = DlrmRanksWithoutNcclNames(&renamed);
  ASSERT_EQ(named.size(), 8u);
  ASSERT_EQ(unnamed.size(), 8u);
  EXPECT_GT(renamed, 0);
  for (size_t i = 0; i < named.size(); ++i) {
    const CriticalPathReport a = AnalyzeCriticalPath(named[i]);
    const CriticalPathReport b = AnalyzeCriticalPath(unnamed[i]);
    // Every kind, not only communication: a collective counted as compute would move time
    // from one to the other.
    EXPECT_EQ(a.by_kind, b.by_kind) << named[i].metadata.source;
  }
  // worker1 waits longest in collectives (critical_path_test.cc): 38.36 % of its path.
  ASSERT_NE(unnamed[7].metadata.source.find("worker1"), std::string::npos);
  const CriticalPathReport r1 = AnalyzeCriticalPath(unnamed[7]);
  EXPECT_EQ(r1.dominant(), CriticalPathKind::kGpuCommunication);
  EXPECT_NEAR(r1.pct(CriticalPathKind::kGpuCommunication), 38.36, 0.005);
}

TEST(UnnamedCollectives, StragglerAndItsEvidenceUnchanged) {
  const StragglerReport a = StragglersOf(testing::ImportAllProfiles(kDlrmRanks));
  int64_t renamed = 0;
  const StragglerReport b = StragglersOf(DlrmRanksWithoutNcclNames(&renamed));
  ASSERT_TRUE(b.straggler.has_value());
  EXPECT_EQ(b.ranks[*b.straggler].rank, 7);
  EXPECT_EQ(b.collectives_matched, 8);
  EXPECT_EQ(b.collectives_matched, a.collectives_matched);
  EXPECT_EQ(b.collectives_unmatched, a.collectives_unmatched);
  EXPECT_EQ(b.since_collective, a.since_collective);
  EXPECT_EQ(b.since_step, a.since_step);
  EXPECT_EQ(b.others_mean_wait_ns, 6'468'142);
  EXPECT_EQ(b.others_mean_wait_ns, a.others_mean_wait_ns);
  EXPECT_EQ(b.evidence, a.evidence);
  ASSERT_EQ(b.ranks.size(), a.ranks.size());
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    EXPECT_EQ(b.ranks[i].comm_wait_ns, a.ranks[i].comm_wait_ns) << i;
    EXPECT_EQ(b.ranks[i].last_arrivals, a.ranks[i].last_arrivals) << i;
    EXPECT_EQ(b.ranks[i].comm_ns, a.ranks[i].comm_ns) << i;
  }
}

TEST(UnnamedCollectives, KernelSequencesStillEndAtCollectives) {
  // The DLRM ranks and the FBGEMM training trace of HTA's trace_diff (60 NCCL kernels).
  std::vector<Profile> named = testing::ImportAllProfiles(kDlrmRanks);
  named.push_back(testing::ImportFirstProfile("kineto/hta/trace_diff/control/control.json.gz"));
  std::vector<Profile> unnamed = testing::ImportAllProfiles(kDlrmRanks);
  unnamed.push_back(testing::ImportFirstProfile("kineto/hta/trace_diff/control/control.json.gz"));
  ASSERT_EQ(named.size(), 9u);
  ASSERT_EQ(unnamed.size(), 9u);
  EXPECT_EQ(HideNcclNames(&unnamed[8]), 60);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(HideNcclNames(&unnamed[i]), 8) << i;
  for (size_t i = 0; i < named.size(); ++i) {
    const std::vector<KernelSequence> a = FindFrequentKernelSequences(named[i]);
    const std::vector<KernelSequence> b = FindFrequentKernelSequences(unnamed[i]);
    EXPECT_FALSE(a.empty()) << named[i].metadata.source;
    ASSERT_EQ(a.size(), b.size()) << named[i].metadata.source;
    for (size_t s = 0; s < a.size(); ++s) {
      EXPECT_EQ(a[s].kernels, b[s].kernels) << named[i].metadata.source;
      EXPECT_EQ(a[s].count, b[s].count) << named[i].metadata.source;
      for (const std::string& k : b[s].kernels) EXPECT_EQ(k.find("custom_collective"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace kraken
