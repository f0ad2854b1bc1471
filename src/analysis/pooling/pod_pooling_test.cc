// Rules of the pooling candidates on small synthetic demands (each number chosen so one
// rule decides), and the MIG slowdown budget on the demand of a real H100 trace; the same
// analysis on real DCGM exports read back from a real Prometheus is tested in
// src/cli/prometheus_cluster_test.cc.
#include "analysis/pooling/pod_pooling.h"

#include <gtest/gtest.h>

#include "analysis/demand.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken::pooling {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

DemandStat Flat(double v) {
  DemandStat s;
  s.measured = true;
  s.mean = s.p95 = s.max = v;
  s.basis = "test";
  return s;
}

PodGpuUse Use(const std::string& pod, const char* device_id, const std::string& uuid, double busy, double memory_gib) {
  PodGpuUse u;
  u.namespace_name = "ml";
  u.pod = pod;
  u.node = "n1";
  u.gpu_uuid = uuid;
  u.device = FindDeviceSpec(device_id);
  u.demand.gpu_busy = Flat(busy);
  if (memory_gib >= 0) u.demand.memory_bytes = Flat(memory_gib * kGiB);
  u.demand.device_sm_count = u.device->sm_count;
  u.demand.device_memory_bytes = static_cast<double>(u.device->memory_bytes);
  u.demand.gpu_index = 0;
  return u;
}

TEST(PodPoolingTest, ReclaimsIdleSharesSmallSlicesOnMigAndKeepsBusy) {
  std::vector<PodGpuUse> uses = {
      Use("idle", "t4", "GPU-a", 0.0, 0.0),    // reclaim
      Use("small-1", "l4", "GPU-b", 0.30, 4),  // share with small-2 (0.30 + 0.40 <= 0.90)
      Use("small-2", "l4", "GPU-c", 0.40, 6),
      Use("notebook", "a100-40gb-sxm", "GPU-d", 0.10, 4),  // MIG: 4 GiB x 1.1 -> 4g.20gb (budget)
      Use("trainer", "a100-40gb-sxm", "GPU-e", 0.95, 30),  // busy: keeps its GPU
      Use("blind", "l4", "GPU-f", 0.30, -1),               // memory not measured
      Use("notebook-2", "a100-40gb-sxm", "GPU-g", 0.06, 4),  // MIG: 3g.20gb, beside the notebook's 4g
  };
  PoolingReport r = FindPoolingCandidates(uses);
  ASSERT_EQ(r.pods.size(), 7u);
  EXPECT_EQ(r.pods[0].action, PoolAction::kReclaim);
  EXPECT_EQ(r.pods[1].action, PoolAction::kShare);
  EXPECT_EQ(r.pods[2].action, PoolAction::kShare);
  EXPECT_EQ(r.pods[3].action, PoolAction::kMigSlice);
  // 4.4 GiB and 10 % of the SMs fit 1g.5gb, but busy 10 % of the time with kernels taken to
  // fill the GPU (no SM-activity series), 1g.5gb (14 of 108 SMs) would stretch the busy time
  // 7.7x: 0.10 / (14/108) - 0.10 = 67.1 % slower, > the 10 % budget; 4g.20gb costs 9.3 %.
  EXPECT_EQ(r.pods[3].detail,
            "4g.20gb (smallest profile that covers memory 4.40 GiB and SMs 10.0% within the 10.0% slowdown budget "
            "(expected 9.3%; 1g.5gb 67.1%, 1g.10gb 67.1%, 2g.10gb 28.6%, 3g.20gb 15.7% over it))");
  EXPECT_EQ(r.pods[4].action, PoolAction::kKeep);
  EXPECT_EQ(r.pods[4].detail, "busy: compute p95 95.0% > 60.0%");
  EXPECT_EQ(r.pods[5].action, PoolAction::kKeep);
  // Smaller GPU: the notebook needs 10% of an A100's 19.5 TFLOP/s FP32 = 1.95 TFLOP/s and
  // 4.4 GiB: a T4 (8.1 TFLOP/s x 80% = 6.5, 16 GB) carries it. small-1 needs 30% of an L4's
  // 30.3 TFLOP/s = 9.1: more than 80% of a T4, and a V100 (14 TFLOP/s) has more memory
  // (32 GB) than the L4 (24 GB). The busy trainer and the unmeasured pod get none.
  ASSERT_NE(r.pods[3].smaller_gpu, nullptr);
  EXPECT_EQ(r.pods[3].smaller_gpu->id, "t4");
  EXPECT_EQ(r.pods[1].smaller_gpu, nullptr);
  EXPECT_EQ(r.pods[4].smaller_gpu, nullptr);
  EXPECT_EQ(r.pods[5].smaller_gpu, nullptr);
  ASSERT_EQ(r.groups.size(), 2u);  // the MIG GPU, then the shared L4
  EXPECT_EQ(r.groups[0].action, PoolAction::kMigSlice);
  EXPECT_EQ(r.groups[1].action, PoolAction::kShare);
  EXPECT_NEAR(r.groups[1].compute_p95_sum, 0.70, 1e-12);
  EXPECT_EQ(r.pods[6].action, PoolAction::kMigSlice);
  // notebook-2, busy 6 %: 1g.5gb 0.06 / (14/108) - 0.06 = 40.3 % slower, 2g.10gb 17.1 %,
  // 3g.20gb (42 SMs) 9.4 %: within the budget, and beside the notebook's 4g.20gb.
  EXPECT_EQ(r.pods[6].detail,
            "3g.20gb (smallest profile that covers memory 4.40 GiB and SMs 6.0% within the 10.0% slowdown budget "
            "(expected 9.4%; 1g.5gb 40.3%, 1g.10gb 40.3%, 2g.10gb 17.1% over it))");
  EXPECT_EQ(r.groups[0].mig_profiles, (std::vector<std::string>{"4g.20gb", "3g.20gb"}));
  EXPECT_EQ(r.gpus_now, 7);
  EXPECT_EQ(r.gpus_reclaimed, 1);
  // Kept: trainer, blind. Pooled: the notebooks' GPUs (2 -> 1) and small-1/2 (2 -> 1).
  EXPECT_EQ(r.gpus_after, 4);
  EXPECT_EQ(r.gpus_saved, 3);
}

TEST(PodPoolingTest, AMigSliceAloneOnItsGpuKeepsTheGpu) {
  // The notebook alone: its 4g.20gb would share its A100 with no other pod's slice, so
  // slicing frees no GPU and would cost 9.3 %: it keeps its GPU (as a sharing-pool pod
  // with no partner does), with a smaller GPU suggested.
  PoolingReport r = FindPoolingCandidates({Use("notebook", "a100-40gb-sxm", "GPU-d", 0.10, 4)});
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].action, PoolAction::kKeep);
  EXPECT_EQ(r.pods[0].detail,
            "not sliced: alone on its GPU: 4g.20gb covers it (expected 9.3% slower) but no other workload's slice "
            "fits beside it: slicing would free no GPU");
  ASSERT_NE(r.pods[0].smaller_gpu, nullptr);
  EXPECT_EQ(r.pods[0].smaller_gpu->id, "t4");
  EXPECT_TRUE(r.groups.empty());
  EXPECT_EQ(r.gpus_saved, 0);
}

TEST(PodPoolingTest, NoUtilizationSeriesMeansUnknownNotIdle) {
  PodGpuUse u = Use("dram-only", "a10", "GPU-x", 0, 1);
  u.demand.gpu_busy = DemandStat{};
  PoolingReport r = FindPoolingCandidates({u});
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].action, PoolAction::kUnknown);
  EXPECT_EQ(r.gpus_saved, 0);
}

TEST(PodPoolingTest, SharingNeverAdvisesMoreGpusThanHeld) {
  // Two pods that fit no common GPU (memory 10 + 10 GiB > 90% of an L4's 24 GB).
  std::vector<PodGpuUse> uses = {Use("a", "l4", "GPU-1", 0.3, 10), Use("b", "l4", "GPU-2", 0.3, 12)};
  PoolingReport r = FindPoolingCandidates(uses);
  EXPECT_EQ(r.pods[0].action, PoolAction::kKeep);
  EXPECT_EQ(r.pods[1].action, PoolAction::kKeep);
  EXPECT_EQ(r.gpus_after, 2);
  EXPECT_EQ(r.gpus_saved, 0);
}

// `count` pods, each on its own H100, with the demand of a real trace: torch.profiler's
// 20 BERT-base inference batches on an H100 80GB HBM3 (examples/nvidia-h100-80gb-hbm3).
std::vector<PodGpuUse> BertPods(int count) {
  auto profiles = ImportFile(BuiltinImporters(),
                             testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/bert-infer.pt.trace.json.gz");
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  std::vector<PodGpuUse> uses;
  if (!profiles.ok()) return uses;
  std::vector<WorkloadDemand> demands = DeriveDemands(profiles->front(), CharacterizeWorkload(profiles->front()));
  EXPECT_EQ(demands.size(), 1u);
  for (int i = 0; i < count && !demands.empty(); ++i) {
    PodGpuUse& u = uses.emplace_back();
    u.namespace_name = "ml";
    u.pod = "bert-" + std::to_string(i);
    u.node = "n1";
    u.gpu_uuid = "GPU-" + std::to_string(i);
    u.device = FindDeviceSpec(demands[0].device_id);
    u.demand = demands[0];
  }
  return uses;
}

TEST(PodPoolingTest, MigSlicesAreHeldToTheSlowdownBudgetOnARealTrace) {
  std::vector<PodGpuUse> uses = BertPods(2);
  ASSERT_EQ(uses.size(), 2u);
  ASSERT_NE(uses[0].device, nullptr);
  // 0.56 GiB and 11.5 % of the SMs fit 1g.10gb, but each slice below 7g stretches the GPU's
  // busy periods past the 10 % budget (1g.10gb 83.0 % ... 4g.40gb 11.6 %): both pods keep
  // their H100s, nothing is saved.
  PoolingReport r = FindPoolingCandidates(uses);
  for (const PodRecommendation& rec : r.pods) {
    EXPECT_EQ(rec.action, PoolAction::kKeep);
    EXPECT_EQ(rec.detail,
              "not sliced: every profile below 7g.80gb that covers memory 0.56 GiB and SMs 11.5% is predicted more "
              "than 10.0% slower: 1g.10gb 83.0%, 1g.20gb 46.4%, 2g.20gb 35.4%, 3g.40gb 13.2%, 4g.40gb 11.6%");
  }
  EXPECT_TRUE(r.groups.empty());
  EXPECT_EQ(r.gpus_saved, 0);
  EXPECT_DOUBLE_EQ(r.max_slowdown, 0.10);
  // A budget of 1000 %: the packing of before the budget, both on 1g.10gb slices of one H100.
  PoolingOptions any;
  any.max_slowdown = 10;
  PoolingReport old = FindPoolingCandidates(uses, any);
  for (const PodRecommendation& rec : old.pods) {
    EXPECT_EQ(rec.action, PoolAction::kMigSlice);
    EXPECT_EQ(rec.detail.rfind("1g.10gb (", 0), 0u) << rec.detail;
  }
  ASSERT_EQ(old.groups.size(), 1u);
  EXPECT_EQ(old.groups[0].mig_profiles, (std::vector<std::string>{"1g.10gb", "1g.10gb"}));
  EXPECT_EQ(old.gpus_after, 1);
  EXPECT_EQ(old.gpus_saved, 1);
}

}  // namespace
}  // namespace kraken::pooling
