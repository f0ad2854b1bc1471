// Per-candidate GPU facts from attributed passes and the ranking by throughput per GPU
// fraction, on synthetic inputs.
#include "profiling/trial_result.h"

#include <gtest/gtest.h>

namespace kraken::profiling {
namespace {

PassRecord Pass(double tree_sm, double device, double memory, std::set<int32_t> instances = {}) {
  PassRecord pass;
  pass.gpus.resize(2);
  GpuPass& g = pass.gpus[1];
  g.tree_sm_util_pct = tree_sm;
  g.device_util_pct = device;
  g.tree_memory_bytes = memory;
  g.tree_present = memory > 0;
  g.tree_gpu_instances = instances;
  return pass;
}

TEST(TrialResultTest, GpuFactsPreferTheTreesUtilizationAndFallBack) {
  std::vector<PassRecord> passes = {Pass(0, 10, 0), Pass(50, 60, 100), Pass(99, 100, 300), Pass(99, 100, 200)};
  TrialGpuFacts f = SummarizeCandidatePasses(passes, 1);
  EXPECT_EQ(f.passes, 4);
  EXPECT_EQ(f.util_basis, "tree SM util");
  EXPECT_DOUBLE_EQ(*f.util_p50_pct, 74.5);        // sorted 0 50 99 99
  EXPECT_DOUBLE_EQ(*f.util_p95_pct, 99);
  EXPECT_EQ(f.memory_peak_bytes, 300);
  EXPECT_EQ(f.passes_present, 3);
  passes[0].gpus[1].tree_sm_util_pct = -1;  // not reported in one pass: device util instead
  f = SummarizeCandidatePasses(passes, 1);
  EXPECT_EQ(f.util_basis, "device util");
  EXPECT_DOUBLE_EQ(*f.util_p50_pct, 80);  // 10 60 100 100
  for (PassRecord& p : passes) p.gpus[1].device_util_pct = -1;  // MIG: neither
  f = SummarizeCandidatePasses(passes, 1);
  EXPECT_EQ(f.util_basis, "");
  EXPECT_FALSE(f.util_p50_pct);
  EXPECT_EQ(SummarizeCandidatePasses({Pass(1, 1, 5, {2}), Pass(1, 1, 5, {9})}, 1).gpu_instances_seen,
            (std::set<int32_t>{2, 9}));
  PassRecord elsewhere = Pass(1, 1, 5);
  elsewhere.gpus[0].tree_present = true;  // the workload also ran on GPU 0
  EXPECT_EQ(SummarizeCandidatePasses({elsewhere}, 1).gpus_seen, (std::set<int32_t>{0, 1}));
  EXPECT_EQ(SummarizeCandidatePasses(passes, 7).memory_peak_bytes, 0);  // no such GPU: nothing
}

TrialResult Result(const std::string& uuid, std::optional<double> fraction, std::optional<double> median,
                   std::string state = "stopped", int exit_code = 143) {
  TrialResult r;
  r.candidate.uuid = uuid;
  r.candidate.gpu_fraction = fraction;
  if (!fraction) r.candidate.fraction_basis.assign("unknown: no geometry");
  r.exit.state = state;
  r.exit.exit_code = exit_code;
  if (median) {
    r.throughput = ThroughputFigures{};
    r.throughput->readings = *median > 0 ? 5 : 0;
    r.throughput->median = *median;
  }
  return r;
}

TEST(TrialResultTest, RanksByThroughputPerGpuFraction) {
  // A whole GPU at 120/s, a 1g slice (1/7) at 40/s = 280 per GPU, a 3g slice at 90/s = 210.
  std::vector<TrialResult> results = {Result("GPU-a", 1.0, 120.0), Result("MIG-1g", 1.0 / 7, 40.0),
                                      Result("MIG-3g", 3.0 / 7, 90.0)};
  TrialRanking ranking = RankCandidates(results);
  ASSERT_EQ(ranking.ranked.size(), 3u);
  EXPECT_EQ(ranking.ranked[0].result, 1u);
  EXPECT_DOUBLE_EQ(ranking.ranked[0].throughput_per_gpu_fraction, 280);
  EXPECT_EQ(ranking.ranked[1].result, 2u);
  EXPECT_DOUBLE_EQ(ranking.ranked[1].throughput_per_gpu_fraction, 210);
  EXPECT_DOUBLE_EQ(ranking.ranked[1].relative_to_best, 0.75);
  EXPECT_EQ(ranking.ranked[2].rank, 3);
  EXPECT_TRUE(ranking.unranked.empty());
}

TEST(TrialResultTest, TiesShareARankAndUnmeasuredCandidatesSayWhy) {
  std::vector<TrialResult> results = {Result("a", 1.0, 40.0), Result("b", 1.0, 40.0), Result("c", 1.0, std::nullopt),
                                      Result("d", 1.0, 0.0), Result("e", std::nullopt, 50.0),
                                      Result("f", 1.0, 90.0, "exited", 1), Result("g", 1.0, 10.0, "exited", 0)};
  results.push_back(Result("h", 1.0, 10.0));
  results.back().interrupted = true;
  TrialRanking ranking = RankCandidates(results);
  ASSERT_EQ(ranking.ranked.size(), 3u);
  EXPECT_EQ(ranking.ranked[0].rank, 1);
  EXPECT_EQ(ranking.ranked[1].rank, 1);
  EXPECT_EQ(ranking.ranked[2].rank, 3);
  EXPECT_EQ(ranking.ranked[2].result, 6u);  // exited 0 by itself: its readings count
  ASSERT_EQ(ranking.unranked.size(), 5u);
  EXPECT_EQ(ranking.unranked[0].reason, "throughput not measured (no --throughput-regex or --throughput-file)");
  EXPECT_EQ(ranking.unranked[1].reason, "no throughput reading after the warmup");
  EXPECT_EQ(ranking.unranked[2].reason, "GPU fraction unknown: no geometry");
  EXPECT_EQ(ranking.unranked[3].reason, "the workload failed (exit code 1)");
  EXPECT_EQ(ranking.unranked[4].reason, "interrupted by a stop signal");
}

}  // namespace
}  // namespace kraken::profiling
