// The disaggregated-serving reference on the real Alibaba 2025 trace.
#include "analysis/disagg/fleet_reference.h"

#include <gtest/gtest.h>

#include "base/byte_stream.h"
#include "base/testing/test_data.h"

namespace kraken::disagg {
namespace {

std::string ReadGzip(const std::string& path) {
  auto file = OpenFileStream(path);
  EXPECT_TRUE(file.ok());
  auto stream = MakeGzipStream(std::move(*file));
  auto text = ReadAll(*stream);
  EXPECT_TRUE(text.ok());
  return text.ok() ? *text : "";
}

TEST(FleetReferenceTest, AlibabaDisaggregatedDlrmRatios) {
  auto ref = SummarizeDisaggregatedFleet(
      ReadGzip(testing::DataPath("alibaba-dlrm-v2025/disaggregated_DLRM_trace.csv.gz")));
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  EXPECT_EQ(ref->instances, 23871);
  EXPECT_EQ(ref->gpu_node_instances, 7386);
  EXPECT_EQ(ref->cpu_node_instances, 16485);
  EXPECT_EQ(ref->apps, 156);
  EXPECT_EQ(ref->skipped_rows, 0);
  // Every GPU-node instance holds one GPU and asks for (p10 / p50 / p90):
  EXPECT_EQ(ref->vcpu_per_gpu.count, 7386);
  EXPECT_DOUBLE_EQ(ref->vcpu_per_gpu.p10, 8);
  EXPECT_DOUBLE_EQ(ref->vcpu_per_gpu.p50, 8);
  EXPECT_DOUBLE_EQ(ref->vcpu_per_gpu.p90, 12);
  EXPECT_NEAR(ref->vcpu_per_gpu.mean, 8.51692, 1e-5);
  EXPECT_DOUBLE_EQ(ref->host_memory_gib_per_gpu.p10, 32);
  EXPECT_DOUBLE_EQ(ref->host_memory_gib_per_gpu.p50, 40);
  EXPECT_DOUBLE_EQ(ref->host_memory_gib_per_gpu.p90, 80);
  EXPECT_NEAR(ref->host_memory_gib_per_gpu.mean, 46.82589, 1e-5);
  EXPECT_DOUBLE_EQ(ref->rdma_pct_per_gpu.p50, 25);  // a quarter of one RNIC
  EXPECT_NEAR(ref->rdma_pct_per_gpu.mean, 27.86366, 1e-5);
  // CPU-node instances per GPU-node instance, per app (all 156 apps have both roles).
  EXPECT_EQ(ref->cpu_instances_per_gpu_instance.count, 156);
  EXPECT_NEAR(ref->cpu_instances_per_gpu_instance.p50, 1.774527, 1e-6);
  EXPECT_NEAR(ref->cpu_instances_per_gpu_instance.p10, 0.493902, 1e-6);
  EXPECT_NEAR(ref->cpu_instances_per_gpu_instance.p90, 6.464286, 1e-6);
  EXPECT_DOUBLE_EQ(ref->cpu_node_vcpu.p50, 64);
}

TEST(FleetReferenceTest, OtherFilesAreRefused) {
  EXPECT_FALSE(SummarizeDisaggregatedFleet("").ok());
  EXPECT_EQ(SummarizeDisaggregatedFleet("a,b\n1,2\n").status().message(),
            "line 1: not the disaggregated DLRM trace (no 'role' column)");
}

}  // namespace
}  // namespace kraken::disagg
