// The agent's window analysis on real data: passes of the replayed nvidia-smi captures
// (tests/fixtures/nvml/*.nvml, derived from shared/data/nvidia-smi) checked against the
// capture's own values, and against the cluster analysis (PodGpuUses +
// FindPoolingCandidates, what `kraken analyze --prometheus` runs) on the profile kraken's
// nvidia-smi importer makes of the same capture.
#include "agent/workload_window.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "analysis/pooling/pod_pooling.h"
#include "base/testing/test_data.h"
#include "collectors/nvml/nvml_sampler.h"
#include "exporter/workload_exposition.h"
#include "importers/registry.h"
#include "agent/agent_test_support.h"

namespace kraken::agent {
namespace {

using testing::OpenReplay;

// One round of the replay: a pass per frame, frames 0-4 the capture's idle phase (dmon
// rows), 5-9 its load phase.
std::vector<SampleBatch> OneRound(nvml::NvmlSampler& sampler) {
  std::vector<SampleBatch> passes(10);
  for (SampleBatch& b : passes) sampler.Sample(b);
  return passes;
}

std::vector<const SampleBatch*> Window(const std::vector<SampleBatch>& passes, size_t first, size_t end) {
  std::vector<const SampleBatch*> out;
  for (size_t i = first; i < end && i < passes.size(); ++i) out.push_back(&passes[i]);
  return out;
}

// H100 80GB HBM3 (capture__...nvidia-h100-80gb-hbm3...): dmon sm 0 x5 idle, 100 x5 under
// gpu-burn; memory.used 0 idle, 19818 MiB = 20780679168 B under load.
TEST(WorkloadWindowTest, ReplayedH100WindowGivesTheCapturesFigures) {
  nvml::NvmlSession session = OpenReplay("h100.nvml");
  ASSERT_NE(session.sampler, nullptr);
  std::vector<SampleBatch> passes = OneRound(*session.sampler);
  std::vector<GpuWindowAnalysis> all = AnalyzeWorkloadWindow(Window(passes, 0, 10), session.sampler->devices(), "n");
  ASSERT_EQ(all.size(), 1u);
  const GpuWindowAnalysis& r = all[0];
  EXPECT_EQ(r.entity.gpu_index, 0);
  EXPECT_EQ(r.entity.gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.passes, 10);
  EXPECT_EQ(r.gpu_util_p95, 1.0);      // the 95th percentile of 5 x 0 and 5 x 100 %
  EXPECT_EQ(r.idle_ratio, 0.5);        // 5 of 10 passes at 0 %
  EXPECT_EQ(r.memory_peak_bytes, 20780679168.0);
  EXPECT_EQ(r.workload_type, "unknown");  // NVML samples carry no backward pass or serving engine
  EXPECT_EQ(r.pooling_action, "keep");
  EXPECT_EQ(r.pooling_detail, "busy: compute p95 100.0% > 60.0%");
  EXPECT_EQ(r.bound, "");  // the capture has no GPM activity: no verdict
  EXPECT_GE(r.window_s, 0);
}

// L40S (capture__...nvidia-l40s...): dmon sm 0 0 0 0 0 | 10 9 9 9 10; memory.used 0 |
// 1294991360 B of 48305799168. Over the round the GPU is lightly used and not MIG-capable:
// a share candidate with no partner on the node; over the idle phase alone, reclaimable.
TEST(WorkloadWindowTest, ReplayedL40sIsKeptWithoutPartnerAndReclaimedWhenIdle) {
  nvml::NvmlSession session = OpenReplay("l40s.nvml");
  ASSERT_NE(session.sampler, nullptr);
  std::vector<SampleBatch> passes = OneRound(*session.sampler);
  const auto& devices = session.sampler->devices();
  std::vector<GpuWindowAnalysis> round = AnalyzeWorkloadWindow(Window(passes, 0, 10), devices, "n");
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(round[0].gpu_util_p95, 0.1);  // sorted 0 0 0 0 0 9 9 9 10 10: index 8.55 -> 10 %
  EXPECT_EQ(round[0].idle_ratio, 0.5);
  EXPECT_EQ(round[0].memory_peak_bytes, 1294991360.0);
  EXPECT_EQ(round[0].pooling_action, "keep");
  EXPECT_EQ(round[0].pooling_detail, "no partner fits beside it");

  std::vector<GpuWindowAnalysis> idle = AnalyzeWorkloadWindow(Window(passes, 0, 5), devices, "n");
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0].passes, 5);
  EXPECT_EQ(idle[0].gpu_util_p95, 0.0);
  EXPECT_EQ(idle[0].idle_ratio, 1.0);
  EXPECT_EQ(idle[0].memory_peak_bytes, 0.0);
  EXPECT_EQ(idle[0].pooling_action, "reclaim");
  EXPECT_EQ(idle[0].pooling_detail, "idle: busy p95 0.0%, memory 0.0%");
}

// The same capture through kraken's nvidia-smi importer (what `kraken analyze` reads), each
// phase a demand of its own: the cluster analysis on that profile must say what the
// window analysis says on the replayed passes of the phase.
void ExpectSameAsImportedCapture(const std::string& fixture, const std::string& capture) {
  SCOPED_TRACE(fixture);
  nvml::NvmlSession session = OpenReplay(fixture);
  ASSERT_NE(session.sampler, nullptr);
  std::vector<SampleBatch> passes = OneRound(*session.sampler);
  auto imported = ImportFile(BuiltinImporters(), testing::DataPath("nvidia-smi/" + capture));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  ASSERT_EQ(imported->size(), 1u);
  std::vector<pooling::PodGpuUse> uses = pooling::PodGpuUses((*imported)[0], "", "", nullptr);
  ASSERT_EQ(uses.size(), 2u);  // idle and load phase
  for (const pooling::PodGpuUse& use : uses) {
    SCOPED_TRACE(use.demand.phase);
    size_t first = use.demand.phase == "idle" ? 0 : 5;
    std::vector<GpuWindowAnalysis> window =
        AnalyzeWorkloadWindow(Window(passes, first, first + 5), session.sampler->devices(), "n");
    ASSERT_EQ(window.size(), 1u);
    pooling::PoolingReport report = pooling::FindPoolingCandidates({use});
    ASSERT_EQ(report.pods.size(), 1u);
    EXPECT_EQ(window[0].gpu_util_p95, use.demand.gpu_busy.p95);
    EXPECT_EQ(window[0].memory_peak_bytes, use.demand.memory_bytes.max);
    EXPECT_EQ(window[0].workload_type, use.demand.workload_type);
    EXPECT_EQ(window[0].pooling_action, pooling::PoolActionName(report.pods[0].action));
    int idle = 0;
    for (double b : use.demand.busy_bins) idle += b <= pooling::PoolingOptions{}.idle_busy_p95;
    ASSERT_EQ(use.demand.busy_bins.size(), 5u);
    EXPECT_EQ(window[0].idle_ratio, idle / 5.0);
  }
}

TEST(WorkloadWindowTest, AgreesWithTheClusterAnalysisOnTheImportedCapture) {
  ExpectSameAsImportedCapture("h100.nvml", "capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt");
  ExpectSameAsImportedCapture("l40s.nvml", "capture__linux-x86_64__nvidia-l40s__595.80.txt");
}

// H100 in MIG mode (capture__...nvidia-h100-mig...): instances 2 (3g.40gb), 3, 9, 10 with
// 27262976, 17825792, 9437184, 9437184 B used in frame 0; nvidia-smi prints utilization
// as N/A in MIG mode, so there is no busy figure and the pooling action is "unknown"; the
// whole GPU is judged by its instances and gets no action of its own.
TEST(WorkloadWindowTest, MigInstancesWithoutUtilizationHaveMemoryButNoBusyFigures) {
  nvml::NvmlSession session = OpenReplay("h100-mig.nvml");
  ASSERT_NE(session.sampler, nullptr);
  std::vector<SampleBatch> passes = OneRound(*session.sampler);
  std::vector<GpuWindowAnalysis> all = AnalyzeWorkloadWindow(Window(passes, 0, 10), session.sampler->devices(), "n");
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].entity.gpu_instance_id, -1);
  EXPECT_EQ(all[0].pooling_action, "");
  EXPECT_EQ(all[0].memory_peak_bytes, 11665408000.0);
  std::map<int, double> peaks;
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_FALSE(all[i].gpu_util_p95.has_value());
    EXPECT_FALSE(all[i].idle_ratio.has_value());
    EXPECT_EQ(all[i].pooling_action, "unknown");
    peaks[all[i].entity.gpu_instance_id] = all[i].memory_peak_bytes.value_or(-1);
  }
  EXPECT_EQ(peaks, (std::map<int, double>{{2, 11629756416.0}, {3, 17825792.0}, {9, 9437184.0}, {10, 9437184.0}}));
  EXPECT_EQ(all[1].entity.mig_profile, "3g.40gb");
}

// Edge cases inline: GPM activity (no fixture has it) and pod labels on a GPU's series.
SampleBatch Pass(TimeNs t, const std::string& pod, double util, double sm, double dram) {
  SampleBatch b;
  b.time_ns = t;
  SeriesEntity& gpu = b.entities.emplace_back();
  gpu.gpu_index = 0;
  gpu.gpu_uuid = "GPU-test";
  gpu.pod = pod;
  gpu.namespace_name = pod.empty() ? "" : "ml";
  b.values.push_back({Metric::kGpuUtilPct, 0, util, ""});
  if (sm >= 0) b.values.push_back({Metric::kSmActiveRatio, 0, sm, ""});
  if (dram >= 0) b.values.push_back({Metric::kDramActiveRatio, 0, dram, ""});
  return b;
}

TEST(WorkloadWindowTest, BoundOnlyWithGpmActivityAndOneResultPerPod) {
  std::vector<SampleBatch> passes = {Pass(1'000'000'000, "a", 90, 0.7, 0.2), Pass(2'000'000'000, "a", 80, 0.8, 0.3),
                                     Pass(3'000'000'000, "a", 70, 0.6, 0.1), Pass(4'000'000'000, "b", 10, -1, -1),
                                     Pass(5'000'000'000, "b", 20, -1, 0.5)};
  std::vector<GpuWindowAnalysis> all = AnalyzeWorkloadWindow(Window(passes, 0, 5), {}, "n");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].entity.pod, "a");
  EXPECT_EQ(all[0].passes, 3);
  EXPECT_EQ(all[0].window_s, 2.0);
  EXPECT_EQ(all[0].bound, "compute");  // SM median 0.7 >= 0.5, DRAM median 0.2
  EXPECT_EQ(all[0].bound_reason, "GPM median SM/tensor active 70%, DRAM active 20%");
  EXPECT_EQ(all[1].entity.pod, "b");
  EXPECT_EQ(all[1].bound, "");  // DRAM without SM or tensor activity: no verdict
  EXPECT_EQ(all[1].passes, 2);
  EXPECT_FALSE(all[1].memory_peak_bytes.has_value());
  EXPECT_EQ(all[1].pooling_action, "keep");  // memory not measured: a share cannot be sized
}

// The exposition of those figures: HELP/TYPE once per family, the entity's labels, the
// info families' extra labels, absent families for absent figures.
TEST(WorkloadWindowTest, RendersKrakenFamiliesWithTheGpuLabels) {
  std::vector<SampleBatch> passes = {Pass(1'000'000'000, "a", 90, 0.7, 0.2), Pass(2'000'000'000, "a", 80, 0.8, 0.3)};
  std::vector<GpuWindowAnalysis> all = AnalyzeWorkloadWindow(Window(passes, 0, 2), {}, "n");
  exporter::ExpositionInput input;
  input.hostname = "node-1";
  std::string text;
  exporter::RenderWorkloadWindow(all, input, text);
  const std::string labels = "{gpu=\"0\",UUID=\"GPU-test\",device=\"nvidia0\",Hostname=\"node-1\",namespace=\"ml\",pod=\"a\"";
  EXPECT_NE(text.find("# TYPE kraken_gpu_util_p95 gauge\nkraken_gpu_util_p95" + labels + "} 0.895\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kraken_gpu_idle_ratio" + labels + "} 0\n"), std::string::npos);
  EXPECT_NE(text.find("kraken_analysis_window_seconds" + labels + "} 1\n"), std::string::npos);
  EXPECT_NE(text.find("kraken_analysis_passes" + labels + "} 2\n"), std::string::npos);
  EXPECT_NE(text.find("kraken_workload_info" + labels + ",workload_type=\"unknown\",pooling_action=\"keep\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("kraken_gpu_bound_info" + labels + ",bound=\"compute\"} 1\n"), std::string::npos);
  EXPECT_EQ(text.find("kraken_memory_peak_bytes"), std::string::npos);  // not measured: absent
}

}  // namespace
}  // namespace kraken::agent
