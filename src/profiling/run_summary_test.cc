// Attribution of synthetic passes and the run summary's arithmetic; the end-to-end figures
// on real captures are in src/cli/profile_cli_test.cc.
#include "profiling/run_summary.h"

#include <cmath>

#include <gtest/gtest.h>

#include "profiling/tree_attribution.h"

namespace kraken::profiling {
namespace {

// A node with one GPU: device utilization, and processes (pid, SM %, memory bytes).
SampleBatch Batch(double device_util, const std::vector<std::tuple<int64_t, double, double>>& processes,
                  int32_t gpu_instance = -1) {
  SampleBatch batch;
  SeriesEntity gpu;
  gpu.gpu_index = 0;
  batch.entities.push_back(gpu);
  if (device_util >= 0) batch.values.push_back({Metric::kGpuUtilPct, 0, device_util, "util"});
  for (const auto& [pid, sm, memory] : processes) {
    SeriesEntity p = gpu;
    p.pid = pid;
    p.gpu_instance_id = gpu_instance;
    batch.entities.push_back(p);
    int32_t e = static_cast<int32_t>(batch.entities.size() - 1);
    if (sm >= 0) batch.values.push_back({Metric::kProcessSmUtilPct, e, sm, "sm"});
    batch.values.push_back({Metric::kProcessUsedMemoryBytes, e, memory, "mem"});
  }
  return batch;
}

TEST(TreeAttributionTest, KeepsTheTreeAndDropsOtherUsersProcesses) {
  SampleBatch kept;
  PassRecord pass = AttributePass(Batch(80, {{7, 30, 1000}, {8, 45, 2000}, {9, 40, 5000}}), {7, 8}, 1, {true}, &kept);
  const GpuPass& g = pass.gpus[0];
  EXPECT_EQ(g.device_util_pct, 80);
  EXPECT_EQ(g.tree_sm_util_pct, 75);
  EXPECT_EQ(g.tree_memory_bytes, 3000);
  EXPECT_TRUE(g.tree_present);
  EXPECT_TRUE(g.shared);
  ASSERT_EQ(kept.entities.size(), 3u);  // the GPU and pids 7 and 8
  EXPECT_EQ(kept.entities[2].pid, 8);
  ASSERT_EQ(kept.values.size(), 5u);
  EXPECT_EQ(kept.values.back().entity, 2);
  EXPECT_EQ(kept.values.back().value, 2000);
}

TEST(TreeAttributionTest, ProcessUtilizationIsUnknownWhenNvmlDidNotAnswer) {
  PassRecord answered = AttributePass(Batch(0, {}), {7}, 1, {true}, nullptr);
  EXPECT_EQ(answered.gpus[0].tree_sm_util_pct, 0);  // answered, nobody active
  PassRecord mig = AttributePass(Batch(-1, {{7, -1, 4096}}, 2), {7}, 1, {false}, nullptr);
  EXPECT_EQ(mig.gpus[0].tree_sm_util_pct, -1);
  EXPECT_EQ(mig.gpus[0].device_util_pct, -1);
  EXPECT_EQ(mig.gpus[0].tree_gpu_instances, (std::set<int32_t>{2}));
  EXPECT_EQ(mig.gpus[0].tree_memory_bytes, 4096);
}

TEST(RunSummaryTest, PercentilesGapsAndPeaksOverEveryPass) {
  // idle, idle, busy, busy, idle, busy: two gaps (2 passes and 1 pass).
  std::vector<PassRecord> passes;
  for (double sm : {0.0, 0.0, 60.0, 100.0, 0.0, 20.0})
    passes.push_back(AttributePass(Batch(sm, {{7, sm, sm * 10}}), {7}, 1, {true}, nullptr));
  RunSummary s = SummarizeRun(passes, 0.5);
  ASSERT_EQ(s.gpus_used.size(), 1u);
  const GpuRunSummary& g = s.gpus_used[0];
  ASSERT_TRUE(g.tree_sm_util_pct.has_value());
  // numpy.percentile([0, 0, 0, 20, 60, 100], [50, 90, 99]) = 10, 80, 98
  EXPECT_DOUBLE_EQ(g.tree_sm_util_pct->p50, 10);
  EXPECT_DOUBLE_EQ(g.tree_sm_util_pct->p90, 80);
  EXPECT_DOUBLE_EQ(g.tree_sm_util_pct->p99, 98);
  EXPECT_EQ(g.tree_memory_peak_bytes, 1000);
  EXPECT_EQ(s.memory_peak_bytes, 1000);
  EXPECT_TRUE(s.idle.known);
  EXPECT_EQ(s.idle.count, 2);
  EXPECT_EQ(s.idle.longest_passes, 2);
  EXPECT_EQ(s.idle.total_passes, 3);
  EXPECT_DOUBLE_EQ(s.idle.longest_s, 1.0);
  EXPECT_DOUBLE_EQ(s.idle.total_s, 1.5);
  EXPECT_EQ(s.bound, "unknown");
  EXPECT_EQ(s.workload_type, "unknown");
  EXPECT_TRUE(s.periodicity_known);
  EXPECT_EQ(s.periodicity, temporal::PeriodVerdict::kTooShort);
}

TEST(RunSummaryTest, BoundFromGpmActivityOnly) {
  std::vector<PassRecord> passes;
  for (int i = 0; i < 3; ++i) {
    PassRecord p = AttributePass(Batch(100, {{7, 90, 1}}), {7}, 1, {true}, nullptr);
    p.gpus[0].sm_active = 0.3;
    p.gpus[0].dram_active = 0.7;
    passes.push_back(p);
  }
  EXPECT_EQ(SummarizeRun(passes, 1).bound, "memory");
  for (PassRecord& p : passes) p.gpus[0].sm_active = 0.8, p.gpus[0].dram_active = 0.2;
  EXPECT_EQ(SummarizeRun(passes, 1).bound, "compute");
  for (PassRecord& p : passes) p.gpus[0].sm_active = 0.1;
  EXPECT_EQ(SummarizeRun(passes, 1).bound, "neither");
}

TEST(RunSummaryTest, GpmPassesWithoutANumberAreLeftOutOfTheBound) {
  std::vector<PassRecord> passes;
  for (int i = 0; i < 3; ++i) {
    PassRecord p = AttributePass(Batch(100, {{7, 90, 1}}), {7}, 1, {true}, nullptr);
    p.gpus[0].sm_active = 0.8;
    p.gpus[0].dram_active = i == 0 ? 0.2 : std::nan("");
    passes.push_back(p);
  }
  RunSummary s = SummarizeRun(passes, 1);
  EXPECT_EQ(s.bound, "compute");
  EXPECT_EQ(s.bound_reason.find("nan"), std::string::npos) << s.bound_reason;
  for (PassRecord& p : passes) p.gpus[0].dram_active = std::nan("");
  EXPECT_EQ(SummarizeRun(passes, 1).bound, "unknown");
}

TEST(RunSummaryTest, MigRunHasMemoryButNoUtilization) {
  std::vector<PassRecord> passes;
  for (int i = 0; i < 4; ++i)
    passes.push_back(AttributePass(Batch(-1, {{7, -1, 100.0 * i}}, 1), {7}, 1, {false}, nullptr));
  RunSummary s = SummarizeRun(passes, 1);
  ASSERT_EQ(s.gpus_used.size(), 1u);
  EXPECT_FALSE(s.gpus_used[0].tree_sm_util_pct.has_value());
  EXPECT_FALSE(s.gpus_used[0].device_util_pct.has_value());
  EXPECT_EQ(s.gpus_used[0].tree_memory_peak_bytes, 300);
  EXPECT_FALSE(s.idle.known);
  EXPECT_FALSE(s.periodicity_known);
}

TEST(RunSummaryTest, NoGpuUsedSaysSo) {
  std::vector<PassRecord> passes{AttributePass(Batch(50, {{9, 50, 10}}), {7}, 1, {true}, nullptr)};
  RunSummary s = SummarizeRun(passes, 1);
  EXPECT_TRUE(s.gpus_used.empty());
  EXPECT_EQ(s.memory_peak_bytes, 0);
  EXPECT_FALSE(s.idle.known);
}

// Process utilization read every 3rd pass (the slow cadence): each read answers for the
// passes since the previous one, so those take its value and the idle gaps stay on the
// tree's own utilization; the passes after the last read take that read's value.
TEST(RunSummaryTest, PassesBetweenProcessReadsTakeTheValueOfTheReadThatCoversThem) {
  std::vector<PassRecord> passes;
  // Reads at passes 0, 3 and 6 (SM 50, 0, 80); the device is busy throughout (another user).
  const double read_sm[] = {50, -1, -1, 0, -1, -1, 80, -1};
  for (double sm : read_sm) {
    bool read = sm >= 0;
    PassRecord p = AttributePass(Batch(90, {{7, read ? sm : -1, 1}}), {7}, 1, {read}, nullptr);
    p.gpus[0].process_util_skipped = !read;
    passes.push_back(p);
  }
  RunSummary s = SummarizeRun(passes, 0.1);
  EXPECT_EQ(s.idle.basis, "the tree's per-process SM utilization");
  // Per pass: 50, 0, 0, 0, 80, 80, 80, 80: one gap of passes 1-3.
  EXPECT_TRUE(s.idle.known);
  EXPECT_EQ(s.idle.count, 1);
  EXPECT_EQ(s.idle.longest_passes, 3);
  ASSERT_EQ(s.gpus_used.size(), 1u);
  ASSERT_TRUE(s.gpus_used[0].tree_sm_util_pct.has_value());
  EXPECT_DOUBLE_EQ(s.gpus_used[0].tree_sm_util_pct->p50, 65);  // median of 0 0 0 50 80 80 80 80
}

}  // namespace
}  // namespace kraken::profiling
