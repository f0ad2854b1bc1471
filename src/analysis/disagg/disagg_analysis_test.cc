// The disaggregation analysis end to end: score parts, strategy, impact and savings on
// real traces and captures, and the invariants every result keeps.
#include "analysis/disagg/disagg_analysis.h"

#include <gtest/gtest.h>

#include "analysis/demand.h"
#include "analysis/disagg/decoupling.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::disagg {
namespace {

struct Analyzed {
  std::vector<Profile> profiles;
  std::vector<DisaggResult> results;
};

Analyzed Analyze(const std::string& relative, const DisaggOptions& options = {}) {
  Analyzed a;
  auto profiles = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (!profiles.ok()) return a;
  a.profiles = std::move(*profiles);
  for (const Profile& p : a.profiles) {
    WorkloadReport report = CharacterizeWorkload(p);
    for (const WorkloadDemand& d : DeriveDemands(p, report)) a.results.push_back(AnalyzeDisaggregation(p, report, d, options));
  }
  return a;
}

const DisaggSection* Section(const DisaggResult& r, const std::string& title) {
  for (const DisaggSection& s : r.sections)
    if (s.title == title) return &s;
  return nullptr;
}

void ExpectInvariants(const DisaggResult& r) {
  SCOPED_TRACE(r.workload);
  EXPECT_GE(r.score, 0);
  EXPECT_LE(r.score, 1);
  for (double part : {r.decoupling.score, r.network_part, r.temporal_part}) {
    EXPECT_GE(part, 0);
    EXPECT_LE(part, 1);
  }
  EXPECT_GE(r.parts_measured, 0);
  EXPECT_LE(r.parts_measured, 3);
  EXPECT_LE(r.impact.lo, r.impact.expected + 1e-12);
  EXPECT_LE(r.impact.expected, r.impact.hi + 1e-12);
  EXPECT_GE(r.impact.lo, 0);
  EXPECT_LE(r.gpu_fraction_lo, r.gpu_fraction_hi);
  EXPECT_GE(r.freed_lo, 0);
  EXPECT_LE(r.freed_hi, 1);
  EXPECT_LE(r.savings_per_hour_lo, r.savings_per_hour_hi);
  if (r.strategy == Strategy::kDedicated) {
    EXPECT_DOUBLE_EQ(r.freed_hi, 0);
  }
  for (const LinkSensitivity& s : r.links) EXPECT_LE(s.slowdown_lo, s.slowdown_hi);
  // Every result explains itself: the demand, the three parts, the score, the decision.
  for (const char* title : {"demand", "decoupling", "network", "temporal", "score", "strategy", "impact", "savings"})
    EXPECT_NE(Section(r, title), nullptr) << title;
  EXPECT_FALSE(Section(r, "strategy")->explanation.terms.empty());
  EXPECT_FALSE(r.strategy_reason.empty());
}

TEST(DisaggAnalysisTest, TbPluginResnetIsKeptDedicated) {
  Analyzed a = Analyze("kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  ASSERT_EQ(a.results.size(), 1u);
  const DisaggResult& r = a.results[0];
  ExpectInvariants(r);
  EXPECT_FALSE(r.decoupling.measured);  // no profile_memory: no footprint
  // Network: 11,922 API calls x 10 us round trip and the 12 pageable copies over 996.477 ms.
  ASSERT_TRUE(r.network_measured);
  EXPECT_NEAR(r.links[0].slowdown_hi, (0.11922 + 2.412288e-05) / 0.996477, 1e-9);
  EXPECT_NEAR(r.network_part, 0.760359, 1e-6);
  EXPECT_NEAR(r.temporal_part, 0.672864, 1e-6);  // the per-step period, 178 ms
  EXPECT_EQ(r.parts_measured, 2);
  EXPECT_NEAR(r.score, (0.760359 + 0.672864) / 2, 1e-6);
  // Busy 60.6 % and 54.7 % of the SMs (tb_plugin's SM efficiency): no rule shares it; the
  // V100 has no MIG.
  EXPECT_EQ(r.strategy, Strategy::kDedicated);
  EXPECT_EQ(r.strategy_reason, "busy 60.6% and needs 54.7% of the GPU: sharing would slow it more than it saves");
  EXPECT_DOUBLE_EQ(r.savings_per_month_hi, 0);
}

TEST(DisaggAnalysisTest, NcclDataRankIsTimeSliced) {
  Analyzed a = Analyze("kineto/hta/nccl_parser_config/nccl_data.json.gz");
  ASSERT_EQ(a.results.size(), 1u);
  const DisaggResult& r = a.results[0];
  ExpectInvariants(r);
  // 29.8 % of its busy time in NCCL: just under the 30 % "keep its peers" rule.
  EXPECT_EQ(r.strategy, Strategy::kTimeSliced);
  const double busy = 0.238437324;  // 157.5 of 660.6 ms
  EXPECT_NEAR(r.impact.expected, busy * busy, 1e-9);
  EXPECT_NEAR(r.impact.hi, busy, 1e-9);
  EXPECT_DOUBLE_EQ(r.impact.lo, 0);
  EXPECT_NEAR(r.gpu_fraction_lo, busy, 1e-9);
  EXPECT_NEAR(r.gpu_fraction_hi, 0.431243, 1e-6);  // the busiest tenth of the window
  EXPECT_NEAR(r.savings_per_hour_hi, (1 - busy) * 2.50, 1e-9);
  EXPECT_NEAR(r.savings_per_month_lo, (1 - 0.4312433939) * 2.50 * 730, 1e-6);
  // The collectives cross a 25 Gb/s link slower than NVLink: the network part falls.
  EXPECT_GT(r.links[1].components[2].added_hi_s, 0.05);
}

TEST(DisaggAnalysisTest, SavingsScaleWithThePriceAndOnlyWithIt) {
  DisaggOptions cheap, dear;
  cheap.price_per_gpu_hour = 1.0;
  dear.price_per_gpu_hour = 4.0;
  const char* trace = "kineto/hta/nccl_parser_config/nccl_data.json.gz";
  const DisaggResult a = Analyze(trace, cheap).results.at(0);
  const DisaggResult b = Analyze(trace, dear).results.at(0);
  EXPECT_NEAR(b.savings_per_hour_lo, 4 * a.savings_per_hour_lo, 1e-12);
  EXPECT_NEAR(b.savings_per_month_hi, 4 * a.savings_per_month_hi, 1e-9);
  EXPECT_EQ(a.strategy, b.strategy);
  EXPECT_DOUBLE_EQ(a.score, b.score);
}

TEST(DisaggAnalysisTest, AllocatorSeriesGivesDecoupling) {
  Analyzed a = Analyze("kineto/hta/df_index_resolver/df_index_resolver.json.gz");
  ASSERT_EQ(a.results.size(), 1u);
  const DisaggResult& r = a.results[0];
  ExpectInvariants(r);
  ASSERT_TRUE(r.decoupling.measured);
  // Peak reserved 12.78 GB of 32 GiB vs 34.1 % of the SMs: similar proportions.
  EXPECT_NEAR(r.decoupling.memory_share, 12782141440.0 / 34359738368.0, 1e-9);
  EXPECT_NEAR(r.decoupling.compute_share, 0.341179, 1e-6);
  EXPECT_NEAR(r.decoupling.imbalance, (0.372009 - 0.341179) / 0.372009, 1e-5);
  // The allocated bytes move only loosely with the busy bins.
  EXPECT_EQ(r.decoupling.points, 992);
  EXPECT_NEAR(r.decoupling.correlation, 0.257946, 1e-6);
  EXPECT_NEAR(r.decoupling.score, (r.decoupling.imbalance + 1 - 0.257946) / 2, 1e-6);
  // 35.7 % of busy time in NCCL all-reduce: dedicated.
  EXPECT_EQ(r.strategy, Strategy::kDedicated);
  EXPECT_EQ(r.strategy_reason.rfind("35.7% of busy time in collectives", 0), 0u);
  EXPECT_GT(r.traffic.collectives_without_sizes, 0);
}

// A trace without the framework allocator's series (a kernel trace of kraken's CUPTI tracer)
// takes the CUDA allocations over time instead; with both, the allocator's is used.
TEST(DisaggAnalysisTest, CudaAllocationsStandInForTheAllocatorSeries) {
  auto imported = ImportFile(BuiltinImporters(), testing::DataPath("kineto/hta/df_index_resolver/df_index_resolver.json.gz"));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  Profile& traced = (*imported)[0];
  std::vector<WorkloadDemand> demands = DeriveDemands(traced, CharacterizeWorkload(traced));
  ASSERT_EQ(demands.size(), 1u);
  const GpuNeed no_need;
  Decoupling allocator = AnalyzeDecoupling(traced, demands[0], no_need);
  ASSERT_TRUE(allocator.correlation_measured);

  Series flat;  // more samples than none, but the allocator's series comes first
  flat.metric = Metric::kCudaAllocatedBytes;
  flat.source_name = "CUDA device memory (flat)";
  flat.samples = {{0, 1e9}, {1, 1e9}, {2, 1e9}, {3, 1e9}};
  traced.series.push_back(flat);
  Decoupling preferred = AnalyzeDecoupling(traced, demands[0], no_need);
  EXPECT_EQ(preferred.memory_series, allocator.memory_series);
  EXPECT_DOUBLE_EQ(preferred.correlation, allocator.correlation);
  traced.series.pop_back();

  size_t renamed = 0;
  for (Series& s : traced.series) {
    if (s.metric != Metric::kAllocatorAllocatedBytes) continue;
    s.metric = Metric::kCudaAllocatedBytes;
    s.source_name = "CUDA device memory";
    ++renamed;
  }
  ASSERT_GT(renamed, 0u);
  Decoupling cuda = AnalyzeDecoupling(traced, demands[0], no_need);
  ASSERT_TRUE(cuda.correlation_measured);
  EXPECT_EQ(cuda.memory_series, "CUDA device memory");
  EXPECT_EQ(cuda.points, allocator.points);
  EXPECT_DOUBLE_EQ(cuda.correlation, allocator.correlation);
}

TEST(DisaggAnalysisTest, NvidiaSmiCaptureUnderLoadNeedsItsGpu) {
  Analyzed a = Analyze("nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt");
  ASSERT_EQ(a.results.size(), 2u);
  for (const DisaggResult& r : a.results) {
    ExpectInvariants(r);
    EXPECT_EQ(r.source_kind, "samples");
    EXPECT_FALSE(r.temporal.measured);  // dmon -c 5: five samples
    if (r.workload.find("[load]") != std::string::npos) {
      EXPECT_EQ(r.strategy, Strategy::kDedicated);
      EXPECT_EQ(r.strategy_reason, "needs 100.0% of a GPU (>= 80.0%)");
      EXPECT_TRUE(r.decoupling.measured);
    }
  }
}

TEST(DisaggAnalysisTest, InvariantsOverTheCorpus) {
  const char* inputs[] = {
      "kineto/kineto_tb_plugin/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
      "kineto/param/dlrm_kineto.tar.gz",
      "kineto/hta/trace_filter/sampled_rank-0.json.gz",
      "kineto/hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
      "kineto/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz",
      "kineto/tracelens/mi210/gpu_only_trace/gpu_only_trace.json.gz",
      "nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt",
      "nvidia-smi/capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt",
      "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom",
      "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt",
  };
  size_t results = 0;
  for (const char* input : inputs) {
    Analyzed a = Analyze(input);
    for (const DisaggResult& r : a.results) ExpectInvariants(r);
    results += a.results.size();
  }
  EXPECT_GE(results, 20u);
  // The eight DLRM ranks spend most of their busy time in NCCL all-to-all: dedicated.
  for (const DisaggResult& r : Analyze("kineto/param/dlrm_kineto.tar.gz").results)
    EXPECT_EQ(r.strategy, Strategy::kDedicated) << r.workload;
}

// The H100 BERT-base inference trace (examples/): busy 17.1 % of the time, its kernels
// fill most of the SMs while it runs, so every MIG slice stretches its busy periods.
DisaggResult AnalyzeBertExample(double mig_max_slowdown) {
  DisaggOptions options;
  options.mig_max_slowdown = mig_max_slowdown;
  std::string path = testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/bert-infer.cupti.json.gz";
  auto profiles = ImportFile(BuiltinImporters(), path);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (!profiles.ok() || profiles->size() != 1) return {};
  const Profile& p = profiles->front();
  WorkloadReport report = CharacterizeWorkload(p);
  std::vector<WorkloadDemand> demands = DeriveDemands(p, report);
  EXPECT_EQ(demands.size(), 1u);
  return demands.empty() ? DisaggResult{} : AnalyzeDisaggregation(p, report, demands.front(), options);
}

std::vector<std::string> MigTermNotes(const DisaggResult& r) {
  std::vector<std::string> notes;
  for (const ExplainItem& t : Section(r, "strategy")->explanation.terms)
    if (t.name.rfind("MIG ", 0) == 0) notes.push_back(t.name + ": " + t.note);
  return notes;
}

TEST(DisaggAnalysisTest, MigSliceOverTheSlowdownBudgetIsNotRecommended) {
  const DisaggResult r = AnalyzeBertExample(0.10);  // the default budget
  ExpectInvariants(r);
  EXPECT_DOUBLE_EQ(DisaggOptions{}.mig_max_slowdown, 0.10);
  EXPECT_NE(r.strategy, Strategy::kMigSlice);
  EXPECT_TRUE(r.mig_profile.empty());
  // Idle 82.9 % of the time: the gaps are shared (rule 7), at busy^2 = 2.9 % expected.
  EXPECT_EQ(r.strategy, Strategy::kTimeSliced);
  EXPECT_LE(r.impact.expected, 0.10);
  EXPECT_NEAR(r.impact.expected, r.impact.hi * r.impact.hi, 1e-12);
  EXPECT_DOUBLE_EQ(r.mig_max_slowdown, 0.10);
  // --explain says why each slice below 7g was refused.
  std::vector<std::string> notes = MigTermNotes(r);
  ASSERT_EQ(notes.size(), 5u);
  EXPECT_EQ(notes[0], "MIG 1g.10gb refused: 1g.10gb: SM share 12.1% < p95 compute need 16.5%");
  EXPECT_EQ(notes[1], "MIG 1g.20gb refused: 1g.20gb: expected slowdown 66.5% > 10.0%");
  EXPECT_EQ(notes[4], "MIG 4g.40gb refused: 4g.40gb: expected slowdown 16.9% > 10.0%");
}

TEST(DisaggAnalysisTest, UnlimitedSlowdownBudgetKeepsTheSmallestSlice) {
  const DisaggResult r = AnalyzeBertExample(10.0);  // 1000 %: the rule as it was before the budget
  ExpectInvariants(r);
  EXPECT_EQ(r.strategy, Strategy::kMigSlice);
  EXPECT_EQ(r.mig_profile, "1g.20gb");
  // The impact section reports the slowdown the rule weighed: mean need / (26 of 132 SMs) - busy.
  EXPECT_NEAR(r.impact.expected, 0.6649, 5e-5);
  EXPECT_EQ(MigTermNotes(r).back(), "MIG 1g.20gb fits: 1g.20gb: expected slowdown 66.5% <= 1000.0%");
}

TEST(DisaggAnalysisTest, SlowdownBudgetCanChooseALargerSlice) {
  // At 20 %: 1g.20gb (66.5 %) and 2g.20gb (50.8 %) are refused, 3g.40gb (19.1 %) passes.
  const DisaggResult r = AnalyzeBertExample(0.20);
  ExpectInvariants(r);
  EXPECT_EQ(r.strategy, Strategy::kMigSlice);
  EXPECT_EQ(r.mig_profile, "3g.40gb");
  EXPECT_GT(r.impact.expected, 0.10);
  EXPECT_LE(r.impact.expected, 0.20);
  EXPECT_NEAR(r.impact.expected, 0.1913, 5e-5);
  EXPECT_EQ(r.strategy_reason, "predictable demand (0.68 >= 0.60) that fits 3g.40gb within the 20.0% slowdown budget");
  std::vector<std::string> notes = MigTermNotes(r);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[2], "MIG 2g.20gb refused: 2g.20gb: expected slowdown 50.8% > 20.0%");
  EXPECT_EQ(notes[3], "MIG 3g.40gb fits: 3g.40gb: expected slowdown 19.1% <= 20.0%");
  // The slice keeps 4 of 8 memory slices: half the GPU is freed.
  EXPECT_DOUBLE_EQ(r.gpu_fraction_hi, 0.5);
}

TEST(DisaggAnalysisTest, StrategyNames) {
  EXPECT_EQ(StrategyName(Strategy::kRemotePool), "remote-pool friendly");
  EXPECT_EQ(StrategyName(Strategy::kMigSlice), "MIG slice");
  EXPECT_EQ(StrategyName(Strategy::kMpsShare), "MPS share");
  EXPECT_EQ(StrategyName(Strategy::kTimeSliced), "time-sliced");
}

}  // namespace
}  // namespace kraken::disagg
