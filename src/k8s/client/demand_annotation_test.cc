#include "k8s/client/demand_annotation.h"

#include <gtest/gtest.h>

namespace kraken::k8s {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

WorkloadDemand SampledDemand() {
  WorkloadDemand d;
  d.workload_type = "training";
  d.device_id = "a100-40gb-sxm";
  d.gpu_busy = {true, 0.6204, 0.9, 1.0, "utilization.gpu"};
  d.sm_active = {true, 0.5496, 0.8, 0.9, "DCGM_FI_PROF_SM_ACTIVE"};
  d.dram_active = {true, 0.3104, 0.5, 0.6, "DCGM_FI_PROF_DRAM_ACTIVE"};
  d.pcie_bytes_per_s = {true, 1.234e9, 2e9, 3e9, "PCIe"};
  d.memory_bytes = {true, 10 * kGiB, 17 * kGiB, 18.23 * kGiB, "framebuffer used"};
  return d;
}

TEST(DemandAnnotationTest, FormatsTheMeasuredFieldsShortAndParsesThemBack) {
  std::string value = FormatDemandAnnotation(SampledDemand());
  EXPECT_EQ(value, "v1;type=training;busy=0.620;sm=0.550;dram=0.310;pcie-gbs=1.23;mem-gib=18.2;dev=a100-40gb-sxm");
  std::string why;
  std::optional<DemandEntry> e = ParseDemandEntry(value, &why);
  ASSERT_TRUE(e.has_value()) << why;
  EXPECT_EQ(e->demand.workload_type, "training");
  EXPECT_EQ(e->demand.source_kind, "samples");
  EXPECT_EQ(e->demand.device_id, "a100-40gb-sxm");
  EXPECT_TRUE(e->demand.gpu_busy.measured);
  EXPECT_DOUBLE_EQ(e->demand.gpu_busy.mean, 0.62);
  EXPECT_DOUBLE_EQ(e->demand.sm_active.mean, 0.55);
  EXPECT_DOUBLE_EQ(e->demand.dram_active.mean, 0.31);
  EXPECT_DOUBLE_EQ(e->demand.pcie_bytes_per_s.mean, 1.23e9);
  EXPECT_DOUBLE_EQ(e->demand.memory_bytes.max, 18.2 * kGiB);
  EXPECT_FALSE(e->demand.tensor_active.measured);
  EXPECT_EQ(e->gpu, -1);
  // Formatting what was parsed gives the same text: the round trip is stable.
  EXPECT_EQ(FormatDemandAnnotation(e->demand), value);
}

TEST(DemandAnnotationTest, KernelClassesAndNothingMeasured) {
  WorkloadDemand d;
  d.workload_type = "inference";
  EXPECT_EQ(FormatDemandAnnotation(d), "");  // a type alone is not a demand vector
  d.compute_bound_share = 0.25;
  d.memory_bound_share = 0.7;
  EXPECT_EQ(FormatDemandAnnotation(d), "v1;type=inference;cb=0.250;mb=0.700");
  WorkloadDemand slice = SampledDemand();
  slice.mig_instance_sm_count = 42;  // a 3g slice of an A100
  EXPECT_EQ(FormatDemandAnnotation(slice), "");
  std::string why;
  auto e = ParseDemandEntry("v1;type=inference;cb=0.250;mb=0.700", &why);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->demand.memory_bound_share, 0.7);
  EXPECT_FALSE(e->demand.gpu_busy.measured);
}

TEST(DemandAnnotationTest, ResidentEntriesRoundTripAndBadEntriesAreCounted) {
  std::string pod = FormatDemandAnnotation(SampledDemand());
  std::vector<std::string> entries = {ResidentEntry("ml/train-0", 3, pod), ResidentEntry("ml/etl-1", -1, "v1;busy=0.100")};
  EXPECT_EQ(entries[0],
            "v1;pod=ml/train-0;gpu=3;type=training;busy=0.620;sm=0.550;dram=0.310;pcie-gbs=1.23;mem-gib=18.2;"
            "dev=a100-40gb-sxm");
  std::string node = FormatResidentDemand(entries) + ",v2;busy=0.5,v1;busy=1.5,v1;sm,v1;gpu=-2, ,v1;busy=0.2;future=7";
  ResidentDemand r = ParseResidentDemand(node);
  ASSERT_EQ(r.entries.size(), 3u);
  EXPECT_EQ(r.entries[0].pod, "ml/train-0");
  EXPECT_EQ(r.entries[0].demand.name, "ml/train-0");
  EXPECT_EQ(r.entries[0].gpu, 3);
  EXPECT_DOUBLE_EQ(r.entries[0].demand.memory_bytes.max, 18.2 * kGiB);
  EXPECT_EQ(r.entries[1].pod, "ml/etl-1");
  EXPECT_EQ(r.entries[1].gpu, -1);
  EXPECT_DOUBLE_EQ(r.entries[2].demand.gpu_busy.mean, 0.2);  // an unknown v1 field is skipped
  EXPECT_EQ(r.ignored, 4);
  ASSERT_EQ(r.notes.size(), 4u);
  EXPECT_EQ(r.notes[0], "unknown version 'v2'");
  EXPECT_EQ(r.notes[1], "bad value in 'busy=1.5'");  // a ratio above 1
  EXPECT_EQ(r.notes[2], "field 'sm' has no '='");
  EXPECT_EQ(r.notes[3], "bad value in 'gpu=-2'");
  EXPECT_TRUE(ParseResidentDemand("none").entries.empty());
  EXPECT_EQ(ParseResidentDemand("none").ignored, 0);
  EXPECT_EQ(FormatResidentDemand({}), "none");
  std::vector<std::string> many(20, "v1;busy=0.100");
  EXPECT_EQ(ParseResidentDemand(FormatResidentDemand(many)).entries.size(), kMaxResidentEntries);
}

}  // namespace
}  // namespace kraken::k8s
