// Trace diff on HTA's trace_diff pair (same FBGEMM model, steps 1009-1014: control on an
// A100, test on a V100) and on hand-built sides.
#include "analysis/insights/trace_diff.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/insights/insights_testing.h"

namespace kraken {
namespace {

struct DiffSideData {
  std::vector<Profile> profiles;
  std::vector<WorkloadReport> reports;
  TraceSideSummary summary;
};

DiffSideData SummarizeFile(const std::string& file) {
  DiffSideData side;
  side.profiles = testing::ImportAllProfiles(file);
  CharacterizeOptions options;
  options.kernels.top_n = 1'000'000;  // every kernel group, as the diff request asks
  for (const Profile& p : side.profiles) side.reports.push_back(CharacterizeWorkload(p, options));
  std::vector<DiffRank> ranks;
  for (size_t i = 0; i < side.profiles.size(); ++i) ranks.push_back({&side.profiles[i], &side.reports[i]});
  side.summary = SummarizeTraceSide(ranks);
  return side;
}

const DiffEntry* FindEntry(const std::vector<DiffEntry>& entries, std::string_view name) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const DiffEntry& e) { return e.name == name; });
  return it == entries.end() ? nullptr : &*it;
}

TEST(TraceDiff, HtaControlVersusTest) {
  const DiffSideData a = SummarizeFile("kineto/hta/trace_diff/control/control.json.gz");
  const DiffSideData b = SummarizeFile("kineto/hta/trace_diff/test/test.json.gz");
  const TraceDiff d = DiffTraces(a.summary, b.summary);
  // Mean ProfilerStep: 77.491 ms on the A100, 124.067 ms on the V100.
  EXPECT_EQ(d.step.name, "step");
  EXPECT_NEAR(d.step.a_ns, 77'490'833.33, 1);
  EXPECT_NEAR(d.step.b_ns, 124'066'833.33, 1);
  // The biggest change: aten::item (a device-to-host copy and its sync) +170.485 ms.
  ASSERT_FALSE(d.ranked.empty());
  EXPECT_EQ(d.ranked[0].scope, DiffScope::kOperator);
  EXPECT_EQ(d.ranked[0].name, "aten::item");
  EXPECT_NEAR(d.ranked[0].delta_ns(), 170'485'000, 1'000);
  for (size_t i = 1; i < d.ranked.size(); ++i)
    EXPECT_LE(std::fabs(d.ranked[i].delta_ns()), std::fabs(d.ranked[i - 1].delta_ns()));
  // V100 kernels appear, A100 (ampere_/cutlass 80) kernels go.
  const DiffEntry* added = FindEntry(d.added_kernels, "volta_sgemm_128x32_nt");
  ASSERT_NE(added, nullptr);
  EXPECT_NEAR(added->b_ns, 27'836'000, 1'000);
  EXPECT_EQ(added->a_ns, 0);
  ASSERT_NE(FindEntry(d.removed_kernels, "ampere_sgemm_128x128_tn"), nullptr);
  // Timeline categories over the steps: idle falls from 76.007 to 27.296 ms.
  const DiffEntry* idle = FindEntry(d.timeline, "idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_NEAR(idle->a_ns, 76'007'000, 1'000);
  EXPECT_NEAR(idle->b_ns, 27'296'000, 1'000);
  const DiffEntry* comm = FindEntry(d.kernel_classes, "communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_NEAR(comm->delta_ns(), 87'806'000, 1'000);
}

TEST(TraceDiff, SidesAreAveragedPerRank) {
  TraceSideSummary one, two;
  one.ranks = 1;
  one.kernels["gemm"] = NameTime{100, 1};
  two.ranks = 2;
  two.kernels["gemm"] = NameTime{100, 1};
  two.kernels["relu"] = NameTime{40, 2};
  const TraceDiff d = DiffTraces(one, two);
  ASSERT_EQ(d.added_kernels.size(), 1u);
  EXPECT_EQ(d.added_kernels[0].name, "relu");
  EXPECT_EQ(d.added_kernels[0].status, DiffStatus::kAdded);
  const DiffEntry* gemm = FindEntry(d.kernels, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->delta_ns(), 0);
  EXPECT_EQ(gemm->status, DiffStatus::kChanged);
}

}  // namespace
}  // namespace kraken
