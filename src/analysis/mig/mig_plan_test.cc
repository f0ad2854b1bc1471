// MIG planning: profile choice, "do not slice" reasons, totals, on hand-made and real inputs.
#include "analysis/mig/mig_plan.h"

#include <gtest/gtest.h>

#include "analysis/demand.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::mig {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const MigGeometry& Geometry(const char* id) { return *FindMigGeometry(id); }

std::vector<MigWorkload> MigWorkloadsFromPath(const std::string& path) {
  auto profiles = ImportFile(BuiltinImporters(), path);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  std::vector<MigWorkload> out;
  if (!profiles.ok()) return out;
  for (const Profile& p : *profiles)
    for (const WorkloadDemand& d : DeriveDemands(p, CharacterizeWorkload(p))) out.push_back(MigWorkloadFromDemand(d));
  return out;
}

std::vector<MigWorkload> FromFile(const std::string& relative) { return MigWorkloadsFromPath(testing::DataPath(relative)); }

std::string ProfileOf(const MigPlan& plan, size_t i) {
  const MigChoice& c = plan.choices[i];
  return c.sliced ? plan.geometry->profiles[static_cast<size_t>(c.profile)].name : "whole";
}

TEST(MigPlanCsvTest, ParsesColumnsAndReportsBadLines) {
  auto ok = ParseMigPlanCsv("name,memory_gib,sm_fraction,type,comm_share,burst_ratio,sm_peak,nvlink_gbps\n"
                            "bert,6,0.10,inference,,,,\n\n"
                            "trainer,70,0.9,training,0.4,1.5,0.95,12.5\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->size(), 2u);
  const MigWorkload& t = (*ok)[1];
  EXPECT_EQ(t.name, "trainer");
  EXPECT_EQ(t.workload_type, "training");
  EXPECT_DOUBLE_EQ(t.need.memory_bytes, 70 * kGiB);
  EXPECT_DOUBLE_EQ(t.need.compute_p95, 0.9);
  EXPECT_DOUBLE_EQ(t.need.compute_max, 0.95);
  EXPECT_DOUBLE_EQ(t.communication_share, 0.4);
  EXPECT_DOUBLE_EQ(t.nvlink_bytes_per_s, 12.5e9);
  EXPECT_DOUBLE_EQ(t.burst_ratio, 1.5);
  EXPECT_EQ(t.need.compute_basis, "plan CSV line 4");

  EXPECT_EQ(ParseMigPlanCsv("name,memory_gib\nx,1\n").status().message(), "line 1: the header has no 'sm_fraction' column");
  EXPECT_EQ(ParseMigPlanCsv("name,memory_gib,sm_fraction\nx,1,1.5\n").status().message(),
            "line 2: sm_fraction must be a number in [0, 1], got '1.5'");
  EXPECT_EQ(ParseMigPlanCsv("name,memory_gib,sm_fraction\n,1,0.5\n").status().message(), "line 2: empty name");
  EXPECT_TRUE(LooksLikeMigPlanCsv("Name,Memory_GiB,SM_fraction\r\nx,1,1\n"));
  EXPECT_FALSE(LooksLikeMigPlanCsv("{\"traceEvents\": []}"));

  auto flag = ParseMigWorkloadFlag("bert:12:0.25");
  ASSERT_TRUE(flag.ok());
  EXPECT_DOUBLE_EQ(flag->need.memory_bytes, 12 * kGiB);
  EXPECT_FALSE(ParseMigWorkloadFlag("bert:12").ok());
  EXPECT_FALSE(ParseMigWorkloadFlag("bert:x:0.2").ok());
}

TEST(MigPlanTest, HandMadeWorkloadsOnH100) {
  auto workloads = ParseMigPlanCsv(
      "name,memory_gib,sm_fraction,type,comm_share,burst_ratio,sm_peak\n"
      "bert-small,6,0.10,inference,,,\n"
      "resnet-infer,14,0.20,inference,,,\n"
      "llama-7b,30,0.40,inference,,,\n"
      "trainer,70,0.9,training,0.4,,\n"
      "embedder,3,0.05,inference,,3,0.6\n"
      "giant,100,0.5,training,,,\n");
  ASSERT_TRUE(workloads.ok());
  MigPlan plan = PlanMig(*workloads, Geometry("h100-sxm"));
  EXPECT_EQ(ProfileOf(plan, 0), "1g.10gb");  // 6.6 GiB <= 9.75, 10% <= 16/132
  EXPECT_EQ(ProfileOf(plan, 1), "2g.20gb");  // 15.4 GiB: 1g.20gb has the memory but 26/132 = 19.7% < 20% SMs
  EXPECT_EQ(ProfileOf(plan, 2), "3g.40gb");
  // A plan CSV has no busy time: the slowdown model has no input, the smallest cover stays.
  EXPECT_FALSE(plan.choices[0].slowdown_checked);
  EXPECT_EQ(plan.choices[0].reason,
            "smallest profile that covers memory 6.60 GiB and SMs 10.0% (slowdown not checked: GPU busy time not "
            "measured)");
  EXPECT_EQ(ProfileOf(plan, 3), "whole");
  EXPECT_NE(plan.choices[3].reason.find("communicates heavily over NCCL (40.0%"), std::string::npos);
  EXPECT_EQ(ProfileOf(plan, 4), "whole");
  EXPECT_NE(plan.choices[4].reason.find("latency-critical and bursty: bursts reach 60.0%"), std::string::npos);
  EXPECT_EQ(plan.choices[5].whole_gpus, 2);
  EXPECT_EQ(plan.choices[5].reason, "needs more than one GPU: peak memory 100.00 GiB > 80.00 GiB");
  // 3g@0 + 2g@4 + 1g@6 share one GPU.
  ASSERT_EQ(plan.packing.gpus.size(), 1u);
  EXPECT_EQ(plan.packing.gpus[0].items, (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(plan.gpus_total, 1 + 1 + 1 + 2);
  EXPECT_EQ(plan.baseline_gpus, 3 + 1 + 1 + 2);
  EXPECT_DOUBLE_EQ(plan.density_gain, 7.0 / 5.0);
}

// The tests of one workload's profile choice: a workload alone on its GPU is sliced anyway.
MigPlanOptions SliceAlone() {
  MigPlanOptions o;
  o.slice_alone = true;
  return o;
}

TEST(MigPlanTest, HeadroomDecidesBetweenNeighbouringProfiles) {
  std::vector<MigWorkload> w = {*ParseMigWorkloadFlag("a:9:0.2")};
  // 9 GiB x 1.1 = 9.9 GiB > 2g.10gb's 9.75 GiB on an A100-40GB: 3g.20gb.
  EXPECT_EQ(ProfileOf(PlanMig(w, Geometry("a100-40gb-sxm"), SliceAlone()), 0), "3g.20gb");
  MigPlanOptions none = SliceAlone();
  none.memory_headroom = 0;
  EXPECT_EQ(ProfileOf(PlanMig(w, Geometry("a100-40gb-sxm"), none), 0), "2g.10gb");
  // The same need on an H200: a 1g.18gb has the memory but 16/132 SMs < 20%.
  EXPECT_EQ(ProfileOf(PlanMig(w, Geometry("h200-sxm"), SliceAlone()), 0), "2g.35gb");
  // More SMs than 7g.40gb's 98 of 108 cannot be sliced at all.
  std::vector<MigWorkload> big = {*ParseMigWorkloadFlag("b:10:0.95")};
  MigPlan plan = PlanMig(big, Geometry("a100-40gb-sxm"));
  EXPECT_FALSE(plan.choices[0].sliced);
  EXPECT_EQ(plan.choices[0].reason.rfind("needs the whole GPU: memory 11.00 GiB and SMs 95.0% exceed", 0), 0u);
  EXPECT_EQ(ChooseProfile(Geometry("h100-sxm"), 0, 0), 0);
  EXPECT_EQ(ChooseProfile(Geometry("h100-sxm"), 90 * kGiB, 0), -1);
}

TEST(MigPlanTest, BertOnH100IsHeldToTheSlowdownBudget) {
  auto bert = MigWorkloadsFromPath(testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/bert-infer.cupti.json.gz");
  ASSERT_EQ(bert.size(), 1u);
  ASSERT_TRUE(bert[0].load.busy_measured);
  const MigGeometry& h100 = Geometry("h100-sxm");
  // 1g.20gb covers its p95 SMs (memory not measured), but its busy periods (17.1 % of the
  // time, a mean compute need of 16.5 % of the SMs) would stretch:
  // 0.165 / (26/132) - 0.171 = 66.5 % slower; every larger slice below 7g is over the 10 %
  // budget too: not sliced.
  MigPlan plan = PlanMig(bert, h100);
  const MigChoice& c = plan.choices[0];
  EXPECT_FALSE(c.sliced);
  EXPECT_TRUE(c.slowdown_checked);
  EXPECT_NE(c.reason.find("is predicted more than 10.0% slower: 1g.20gb 66.5%, 2g.20gb 50.8%, 3g.40gb 19.1%, "
                          "4g.40gb 16.9%"),
            std::string::npos)
      << c.reason;
  // At 20 %: 3g.40gb, the slice `kraken disagg --max-slowdown 20` recommends, when a
  // workload alone on its GPU is sliced; by default it keeps the GPU (slicing frees none).
  MigPlanOptions twenty = SliceAlone();
  twenty.max_slowdown = 0.20;
  MigPlan within = PlanMig(bert, h100, twenty);
  EXPECT_EQ(ProfileOf(within, 0), "3g.40gb");
  EXPECT_NEAR(within.choices[0].expected_slowdown, 0.191, 5e-4);
  twenty.slice_alone = false;
  MigPlan alone = PlanMig(bert, h100, twenty);
  EXPECT_EQ(ProfileOf(alone, 0), "whole");
  EXPECT_EQ(alone.choices[0].reason,
            "alone on its GPU: 3g.40gb covers it (expected 19.1% slower) but no other workload's slice fits beside "
            "it: slicing would free no GPU");
  EXPECT_EQ(alone.gpus_whole, 1);
  EXPECT_TRUE(alone.packing.gpus.empty());
  // A budget of 1000 %: the smallest cover, as before the budget.
  MigPlanOptions any = SliceAlone();
  any.max_slowdown = 10;
  MigPlan smallest = PlanMig(bert, h100, any);
  EXPECT_EQ(ProfileOf(smallest, 0), "1g.20gb");
  EXPECT_NEAR(smallest.choices[0].expected_slowdown, 0.665, 5e-4);
  EXPECT_NEAR(PredictSliceSlowdown(h100, *FindMigProfile(h100, "1g.20gb"), bert[0].load).expected, 0.665, 5e-4);
}

TEST(MigPlanTest, TbPluginResnetTracesShareAnH100) {
  auto w0 = FromFile("kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  auto w4 = FromFile("kineto/kineto_tb_plugin/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz");
  ASSERT_EQ(w0.size(), 1u);
  ASSERT_EQ(w4.size(), 1u);
  std::vector<MigWorkload> both = {w0[0], w4[0]};
  MigPlan plan = PlanMig(both, Geometry("h100-sxm"), SliceAlone());
  // tb_plugin's est. SM efficiency (54.68 % / 69.22 % of a V100's 80 SMs) carried over as
  // SMs: 43.7 and 55.4 of the H100's 132, both within 3g.40gb's 60.
  EXPECT_NEAR(plan.choices[0].compute_need, 0.5468 * 80 / 132, 1e-4);
  EXPECT_NEAR(plan.choices[1].compute_need, 0.6922 * 80 / 132, 1e-4);
  // But the GPU is busy 60.6 % / 76.7 % of the time: on 3g.40gb the busy periods would
  // stretch to 0.331 / (60/132) = 72.9 % and 0.420 / (60/132) = 92.3 % of today's wall time,
  // 12.3 % and 15.6 % slower: over the 10 % budget. 4g.40gb (64 SMs) costs 7.8 % and 9.9 %:
  // within it. Two 4g slices cannot share a GPU: 2 GPUs, no more than unsliced.
  EXPECT_EQ(ProfileOf(plan, 0), "4g.40gb");
  EXPECT_EQ(ProfileOf(plan, 1), "4g.40gb");
  EXPECT_NEAR(plan.choices[0].expected_slowdown, 0.078, 5e-4);
  EXPECT_NEAR(plan.choices[1].expected_slowdown, 0.099, 5e-4);
  EXPECT_EQ(plan.gpus_total, 2);
  EXPECT_DOUBLE_EQ(plan.density_gain, 1.0);
  // By default each keeps its whole GPU: alone on it, a slice frees no GPU.
  MigPlan kept = PlanMig(both, Geometry("h100-sxm"));
  for (int i : {0, 1}) {
    EXPECT_EQ(ProfileOf(kept, i), "whole");
    EXPECT_EQ(kept.choices[static_cast<size_t>(i)].reason.rfind("alone on its GPU: 4g.40gb covers it (expected ", 0), 0u)
        << kept.choices[static_cast<size_t>(i)].reason;
  }
  EXPECT_EQ(kept.gpus_whole, 2);
  EXPECT_EQ(kept.gpus_for_slices, 0);
  EXPECT_EQ(kept.gpus_total, 2);
  EXPECT_DOUBLE_EQ(kept.density_gain, 1.0);
  // A budget of 1000 %: the smallest covers, two 3g.40gb on one H100, as before the budget
  // (sharing a GPU, they are sliced whatever slice_alone says).
  MigPlanOptions any;
  any.max_slowdown = 10;
  MigPlan smallest = PlanMig(both, Geometry("h100-sxm"), any);
  EXPECT_EQ(ProfileOf(smallest, 0), "3g.40gb");
  EXPECT_EQ(ProfileOf(smallest, 1), "3g.40gb");
  EXPECT_EQ(smallest.gpus_total, 1);
  EXPECT_DOUBLE_EQ(smallest.density_gain, 2.0);
  // On an A100-80GB: 43.7 SMs exceed 3g.40gb's 42, and 55.4 SMs fit 4g.40gb's 56, but
  // 4g.40gb is predicted 17.5 % and 22.2 % slower (> 10 %): neither is sliced. At 1000 %,
  // two 4g.40gb slices, which cannot share a GPU: 2 GPUs either way, kept whole unless
  // slice_alone.
  MigPlan a100 = PlanMig(both, Geometry("a100-80gb-sxm"));
  EXPECT_EQ(ProfileOf(a100, 0), "whole");
  EXPECT_EQ(ProfileOf(a100, 1), "whole");
  EXPECT_NE(a100.choices[0].reason.find("is predicted more than 10.0% slower: 4g.40gb 17.5%"), std::string::npos)
      << a100.choices[0].reason;
  EXPECT_EQ(a100.gpus_total, 2);
  MigPlan a100_any = PlanMig(both, Geometry("a100-80gb-sxm"), any);
  EXPECT_EQ(ProfileOf(a100_any, 0), "whole");
  EXPECT_EQ(ProfileOf(a100_any, 1), "whole");
  EXPECT_EQ(a100_any.gpus_total, 2);
  any.slice_alone = true;
  MigPlan a100_sliced = PlanMig(both, Geometry("a100-80gb-sxm"), any);
  EXPECT_EQ(ProfileOf(a100_sliced, 0), "4g.40gb");
  EXPECT_EQ(ProfileOf(a100_sliced, 1), "4g.40gb");
  EXPECT_EQ(a100_sliced.gpus_total, 2);
}

TEST(MigPlanTest, DlrmRanksAreNotSlicedBecauseOfNccl) {
  auto ranks = FromFile("kineto/param/dlrm_kineto.tar.gz");
  ASSERT_EQ(ranks.size(), 8u);
  MigPlan plan = PlanMig(ranks, Geometry("a100-80gb-sxm"));
  for (const MigChoice& c : plan.choices) {
    EXPECT_FALSE(c.sliced);
    EXPECT_NE(c.reason.find("communicates heavily over NCCL"), std::string::npos) << c.reason;
    EXPECT_GE(ranks[static_cast<size_t>(c.workload)].communication_share, 0.65);
  }
  EXPECT_EQ(plan.gpus_total, 8);
  EXPECT_DOUBLE_EQ(plan.density_gain, 1.0);
}

TEST(MigPlanTest, NvidiaSmiCaptureIdleAndLoad) {
  auto phases = FromFile("nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt");
  ASSERT_EQ(phases.size(), 2u);
  MigPlan plan = PlanMig(phases, Geometry("h100-sxm"), SliceAlone());
  for (size_t i = 0; i < phases.size(); ++i) {
    if (phases[i].name.find("[load]") != std::string::npos) {
      // gpu-burn keeps every SM busy (dmon sm 100): no slice has enough SMs.
      EXPECT_FALSE(plan.choices[i].sliced);
      EXPECT_DOUBLE_EQ(plan.choices[i].compute_need, 1.0);
    } else {
      EXPECT_EQ(ProfileOf(plan, i), "1g.10gb");
    }
  }
}

}  // namespace
}  // namespace kraken::mig
