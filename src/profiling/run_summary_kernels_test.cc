// ApplyKernelTimeline on kraken's own CUPTI traces recorded on an H100
// (examples/nvidia-h100-80gb-hbm3, scripts/gpu-validate.sh): the run's workload type and
// bound come from the kernels, as `kraken analyze` of the same trace says.
#include "profiling/run_summary_kernels.h"

#include <gtest/gtest.h>

#include "analysis/boundness.h"
#include "analysis/characterize.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::profiling {
namespace {

Profile ImportH100CuptiTrace(const std::string& name) {
  const std::string path = kraken::testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/" + name;
  auto imported = ImportFile(BuiltinImporters(), path, ImportOptions{});
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  if (!imported.ok() || imported->empty()) return Profile();
  return std::move(imported->front());
}

// What NVML alone said of the run phase 2 recorded (its `kraken profile --kernels --json`).
RunSummary NvmlOnlySummary() {
  RunSummary summary;
  summary.workload_type_reason = "NVML samples carry no evidence of a backward pass or a serving engine";
  summary.bound = "neither";
  summary.bound_reason = "GPM median SM/tensor active 2%, DRAM active 1%";
  return summary;
}

TEST(RunSummaryKernels, TrainingTraceDecidesTypeAndBoundAsAnalyzeDoes) {
  Profile trace = ImportH100CuptiTrace("resnet50-train.cupti.json.gz");
  ASSERT_FALSE(trace.kernels.empty());
  const WorkloadReport analyze = CharacterizeWorkload(trace);
  RunSummary summary = NvmlOnlySummary();
  ApplyKernelTimeline(trace, &summary);
  EXPECT_EQ(summary.workload_type, "training");
  EXPECT_EQ(summary.workload_type, WorkloadTypeName(analyze.workload_type.type));
  EXPECT_NE(summary.workload_type_reason.find("from the " + std::to_string(trace.kernels.size()) + " traced kernels, " +
                                               analyze.workload_type.confidence + " confidence"),
            std::string::npos)
      << summary.workload_type_reason;
  EXPECT_NE(summary.workload_type_reason.find(analyze.workload_type.evidence.front()), std::string::npos);
  EXPECT_EQ(summary.bound, BoundnessName(analyze.kernels.mix.Dominant()));
  EXPECT_EQ(summary.bound, "memory");
  // NVML's verdict stays beside the kernels' one.
  EXPECT_NE(summary.bound_reason.find("NVML over the whole run: neither, GPM median SM/tensor active 2%"),
            std::string::npos)
      << summary.bound_reason;
}

TEST(RunSummaryKernels, InferenceTraceIsNotTraining) {
  Profile trace = ImportH100CuptiTrace("bert-infer.cupti.json.gz");
  ASSERT_FALSE(trace.kernels.empty());
  RunSummary summary = NvmlOnlySummary();
  ApplyKernelTimeline(trace, &summary);
  EXPECT_EQ(summary.workload_type, WorkloadTypeName(CharacterizeWorkload(trace).workload_type.type));
  EXPECT_NE(summary.workload_type, "training");
  EXPECT_NE(summary.bound, "neither");
}

TEST(RunSummaryKernels, TimelineWithoutKernelsLeavesNvmlsVerdict) {
  RunSummary summary = NvmlOnlySummary();
  ApplyKernelTimeline(Profile(), &summary);
  EXPECT_EQ(summary.workload_type, "unknown");
  EXPECT_EQ(summary.bound, "neither");
  EXPECT_EQ(summary.bound_reason, "GPM median SM/tensor active 2%, DRAM active 1%");
}

}  // namespace
}  // namespace kraken::profiling
