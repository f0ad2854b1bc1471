// The critical path, the stragglers, the kernel sequences and the trace diff count
// communication on all the evidence a trace carries (analysis/communication.h), not on
// kernel names: on the 8 real DLRM ranks and HTA's trace_diff pair with every NCCL kernel
// renamed to a name of no family (what an NVLS or custom all-reduce kernel looks like to a
// name matcher), each gives the figures it gives with the names.
#include <gtest/gtest.h>

#include "analysis/insights/critical_path.h"
#include "analysis/insights/insights_testing.h"
#include "analysis/insights/kernel_sequences.h"
#include "analysis/insights/stragglers.h"
#include "analysis/insights/trace_diff.h"
#include "base/text.h"

namespace kraken {
namespace {

constexpr char kDlrmRanks[] = "kineto/param/dlrm_kineto.tar.gz";

constexpr char kNeutralKernelName[] = "void custom_collective_kernel<float>(Params)";

// Renames every kernel whose name contains `part` (any case) to the neutral name; returns
// how many were renamed.
int64_t RenameKernelsContaining(Profile* p, std::string_view part) {
  const StringId neutral = p->strings.Intern(kNeutralKernelName);
  int64_t renamed = 0;
  for (Kernel& k : p->kernels) {
    if (!ContainsIgnoreCase(p->Name(k.name), part)) continue;
    k.name = neutral;
    ++renamed;
  }
  return renamed;
}

// Renames every kernel whose name says nccl; returns how many were renamed.
int64_t HideNcclNames(Profile* p) { return RenameKernelsContaining(p, "nccl"); }

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

constexpr char kDiffControl[] = "kineto/hta/trace_diff/control/control.json.gz";
constexpr char kDiffTest[] = "kineto/hta/trace_diff/test/test.json.gz";

// Every kernel class of two diffs, entry by entry.
void ExpectSameKernelClasses(const TraceDiff& named, const TraceDiff& unnamed) {
  ASSERT_EQ(named.kernel_classes.size(), unnamed.kernel_classes.size());
  for (size_t i = 0; i < named.kernel_classes.size(); ++i) {
    const DiffEntry& x = named.kernel_classes[i];
    const DiffEntry& y = unnamed.kernel_classes[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.a_ns, y.a_ns) << x.name;
    EXPECT_EQ(x.b_ns, y.b_ns) << x.name;
    EXPECT_EQ(x.a_count, y.a_count) << x.name;
    EXPECT_EQ(x.b_count, y.b_count) << x.name;
  }
}

const DiffEntry* FindKernelClass(const TraceDiff& d, std::string_view name) {
  for (const DiffEntry& e : d.kernel_classes)
    if (e.name == name) return &e;
  return nullptr;
}

TEST(UnnamedCollectives, TraceDiffClassesUnchangedOnHtaPair) {
  std::vector<Profile> control = testing::ImportAllProfiles(kDiffControl);
  std::vector<Profile> test = testing::ImportAllProfiles(kDiffTest);
  ASSERT_EQ(control.size(), 1u);
  ASSERT_EQ(test.size(), 1u);
  const TraceDiff named = DiffTraces(testing::SummarizeDiffSide(control), testing::SummarizeDiffSide(test));
  EXPECT_EQ(HideNcclNames(&control[0]), 60);
  EXPECT_EQ(HideNcclNames(&test[0]), 64);
  const TraceDiff unnamed = DiffTraces(testing::SummarizeDiffSide(control), testing::SummarizeDiffSide(test));
  ExpectSameKernelClasses(named, unnamed);
  // 42 SendRecv + 18 AllReduce on the A100, 64 collectives on the V100.
  const DiffEntry* comm = FindKernelClass(unnamed, "communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_NEAR(comm->a_ns, 163'535'000, 1'000);
  EXPECT_NEAR(comm->b_ns, 251'341'000, 1'000);
  EXPECT_EQ(comm->a_count, 60);
  EXPECT_EQ(comm->b_count, 64);
  // The renamed kernels are still diffed by their (new) name.
  bool neutral_listed = false;
  for (const DiffEntry& e : unnamed.kernels) neutral_listed = neutral_listed || e.name == kNeutralKernelName;
  EXPECT_TRUE(neutral_listed);
}

TEST(UnnamedCollectives, TraceDiffClassesUnchangedOnDlrmRanks) {
  // A = the 8 DLRM ranks (per-rank means), B = HTA's control trace.
  std::vector<Profile> dlrm = testing::ImportAllProfiles(kDlrmRanks);
  std::vector<Profile> control = testing::ImportAllProfiles(kDiffControl);
  const TraceDiff named = DiffTraces(testing::SummarizeDiffSide(dlrm), testing::SummarizeDiffSide(control));
  int64_t renamed = 0;
  dlrm = DlrmRanksWithoutNcclNames(&renamed);
  EXPECT_EQ(renamed, 64);
  EXPECT_EQ(HideNcclNames(&control[0]), 60);
  const TraceDiff unnamed = DiffTraces(testing::SummarizeDiffSide(dlrm), testing::SummarizeDiffSide(control));
  ExpectSameKernelClasses(named, unnamed);
  const DiffEntry* comm = FindKernelClass(unnamed, "communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_NEAR(comm->a_ns, 6'067'750, 1);  // per rank
  EXPECT_EQ(comm->a_count, 8);
  EXPECT_NEAR(comm->b_ns, 163'535'000, 1'000);
}

// A name that holds communication and compute kernels takes the class of the larger time.
TEST(UnnamedCollectives, TraceDiffMixedNameGoesByMajorityOfTime) {
  // On the A100 side: 42 SendRecv (130.655 ms), 18 AllReduce (32.880 ms) and 6
  // split_embedding_backward ..._cta_per_row kernels (36.180 ms, compute stream 7).
  const TraceSideSummary original = testing::SummarizeDiffSide(testing::ImportAllProfiles(kDiffControl));

  // All 60 collectives and the 6 backward kernels under one name: mostly communication.
  std::vector<Profile> mostly_comm = testing::ImportAllProfiles(kDiffControl);
  ASSERT_EQ(mostly_comm.size(), 1u);
  EXPECT_EQ(HideNcclNames(&mostly_comm[0]), 60);
  EXPECT_EQ(RenameKernelsContaining(&mostly_comm[0], "unweighted_kernel_cta_per_row"), 6);
  const TraceSideSummary a = testing::SummarizeDiffSide(mostly_comm);
  ASSERT_TRUE(a.kernel_classes.contains("communication"));
  EXPECT_NEAR(a.kernel_classes.at("communication").time_ns, 163'535'000 + 36'180'000, 1'000);
  EXPECT_EQ(a.kernel_classes.at("communication").count, 66);

  // The 18 AllReduce and the 6 backward kernels under one name: mostly compute, so the
  // name keeps its group's bound class and only the SendRecv kernels are communication.
  std::vector<Profile> mostly_compute = testing::ImportAllProfiles(kDiffControl);
  ASSERT_EQ(mostly_compute.size(), 1u);
  EXPECT_EQ(RenameKernelsContaining(&mostly_compute[0], "ncclKernel_AllReduce"), 18);
  EXPECT_EQ(RenameKernelsContaining(&mostly_compute[0], "unweighted_kernel_cta_per_row"), 6);
  const TraceSideSummary b = testing::SummarizeDiffSide(mostly_compute);
  ASSERT_TRUE(b.kernel_classes.contains("communication"));
  EXPECT_NEAR(b.kernel_classes.at("communication").time_ns, 130'655'000, 1'000);
  EXPECT_EQ(b.kernel_classes.at("communication").count, 42);

  // Either way every kernel is in exactly one class.
  for (const TraceSideSummary* side : {&original, &a, &b}) {
    double time_ns = 0, count = 0;
    for (const auto& [name, t] : side->kernel_classes) time_ns += t.time_ns, count += t.count;
    EXPECT_NEAR(time_ns, 446'813'000, 1'000);
    EXPECT_EQ(count, 8568);
  }
}

}  // namespace
}  // namespace kraken
