#include "analysis/demand.h"

#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken {
namespace {

std::vector<WorkloadDemand> DemandsOf(const std::string& relative, std::vector<Profile>* keep) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  *keep = std::move(result).value();
  std::vector<WorkloadDemand> out;
  for (const Profile& p : *keep) {
    for (WorkloadDemand& d : DeriveDemands(p, CharacterizeWorkload(p))) out.push_back(std::move(d));
  }
  return out;
}

TEST(DemandTest, TraceDemandFromTheTbPluginResnet) {
  std::vector<Profile> keep;
  auto demands = DemandsOf("kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", &keep);
  ASSERT_EQ(demands.size(), 1u);
  const WorkloadDemand& d = demands[0];
  EXPECT_EQ(d.source_kind, "trace");
  EXPECT_EQ(d.workload_type, "training");
  EXPECT_EQ(d.device_id, "v100-sxm2");
  // Busy over the profiled steps: 603.558 of 996.477 ms (see the timeline tests).
  EXPECT_NEAR(d.gpu_busy.mean, 603.558 / 996.477, 1e-4);
  // tb_plugin's est. SM efficiency 54.68 % is measured over its own (longer) window.
  EXPECT_NEAR(d.sm_active.mean, 0.5468, 0.0001);
  EXPECT_GT(d.busy_bins.size(), 900u);
  EXPECT_LE(d.busy_bins.size(), 1001u);
  for (double b : d.busy_bins) {
    EXPECT_GE(b, 0);
    EXPECT_LE(b, 1.0 + 1e-9);
  }
  // 12 pageable HtoD copies of the input batches.
  EXPECT_TRUE(d.pcie_bytes_per_s.measured);
  EXPECT_GT(d.pcie_bytes_per_s.mean, 0);
  EXPECT_GT(d.compute_bound_share, d.memory_bound_share);
  EXPECT_NEAR(*d.step_time_s, 0.176273, 1e-6);
  EXPECT_GT(d.sm_fill, 0);
  EXPECT_LE(d.sm_fill, 1);
}

TEST(DemandTest, SamplerCaptureGivesOneDemandPerGpuAndPhase) {
  std::vector<Profile> keep;
  auto demands = DemandsOf("nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt", &keep);
  ASSERT_EQ(demands.size(), 2u);  // idle and load
  const WorkloadDemand* load = nullptr;
  for (const auto& d : demands)
    if (d.name.find("[load]") != std::string::npos) load = &d;
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->source_kind, "samples");
  EXPECT_NEAR(load->gpu_busy.mean, 1.0, 1e-9);  // dmon sm 100 x5
  EXPECT_TRUE(load->memory_bytes.measured);
}

TEST(DemandTest, DcgmProfilingFieldsBecomeActivities) {
  std::vector<Profile> keep;
  auto demands = DemandsOf("dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom", &keep);
  ASSERT_EQ(demands.size(), 2u);  // the whole GPU and MIG instance 13
  const WorkloadDemand& gpu = demands[0];
  EXPECT_NEAR(gpu.tensor_active.mean, 0.929260, 1e-9);
  EXPECT_NEAR(gpu.dram_active.mean, 0.690789, 1e-9);
  EXPECT_NEAR(gpu.pcie_bytes_per_s.mean, 33011804.0 + 97863601.0, 1);
  EXPECT_NEAR(demands[1].dram_active.mean, 0.800339, 1e-9);
}

TEST(DemandTest, KernelListShapeForCoLocation) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath("orion/resnet50_4_fwd.csv"));
  ASSERT_TRUE(result.ok());
  const Profile& p = (*result)[0];
  CharacterizeOptions options;
  options.device = FindDeviceSpec("v100-pcie");
  std::vector<WorkloadDemand> demands = DeriveDemands(p, CharacterizeWorkload(p, options));
  ASSERT_EQ(demands.size(), 1u);
  const WorkloadDemand& d = demands[0];
  // 175 operators, 6,498,424 ns in all; SM_usage as blocks over 80 SMs.
  EXPECT_EQ(d.kernel_count, 175);
  EXPECT_NEAR(d.kernel_time_s, 0.006498424, 1e-12);
  ASSERT_EQ(d.sm_fill_time_share.size(), static_cast<size_t>(kSmFillBins + 1));
  double total = 0;
  for (double share : d.sm_fill_time_share) total += share;
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(d.sm_fill_time_share[kSmFillBins], 0.298, 0.0005);  // grids of >= 80 blocks
  EXPECT_NEAR(d.sm_turnover_ns, 91690, 10);
}

// A kernel trace of kraken's CUPTI tracer: its CUDA allocation series is the workload's
// memory, unless the framework's allocator reported (PyTorch [memory] events).
TEST(DemandTest, TraceMemoryFromTheAllocatorElseFromCudaAllocations) {
  Profile p;
  for (int i = 0; i < 4; ++i) {
    Kernel k;
    k.name = p.strings.Intern("k");
    k.start_ns = 1'000'000 * i;
    k.duration_ns = 500'000;
    k.device = 0;
    k.stream = 7;
    p.kernels.push_back(k);
  }
  auto add_series = [&](Metric metric, int32_t gpu, std::vector<double> values) {
    Series& s = p.series.emplace_back();
    s.metric = metric;
    s.entity.gpu_index = gpu;
    for (size_t i = 0; i < values.size(); ++i) s.samples.push_back({static_cast<int64_t>(i) * 1000, values[i]});
  };
  std::vector<WorkloadDemand> none = DeriveDemands(p, CharacterizeWorkload(p));
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0].memory_bytes.measured);

  add_series(Metric::kCudaAllocatedBytes, 0, {1e9, 3e9, 2e9});
  add_series(Metric::kCudaAllocatedBytes, 1, {5e8, 0});
  std::vector<WorkloadDemand> cuda = DeriveDemands(p, CharacterizeWorkload(p));
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_EQ(cuda[0].source_kind, "trace");
  EXPECT_TRUE(cuda[0].memory_bytes.measured);
  EXPECT_EQ(cuda[0].memory_bytes.max, 3e9);
  EXPECT_EQ(cuda[0].memory_bytes.basis,
            "CUDA allocations outstanding (CUPTI memory records; CUDA context not included)");

  // A second process on GPU 0 (its own series): the two add up, 3e9 + 5e8 at t = 1000.
  add_series(Metric::kCudaAllocatedBytes, 0, {0, 5e8, 0});
  EXPECT_EQ(DeriveDemands(p, CharacterizeWorkload(p))[0].memory_bytes.max, 3.5e9);

  add_series(Metric::kAllocatorReservedBytes, 0, {4e9});
  std::vector<WorkloadDemand> framework = DeriveDemands(p, CharacterizeWorkload(p));
  EXPECT_EQ(framework[0].memory_bytes.max, 4e9);
  EXPECT_EQ(framework[0].memory_bytes.basis, "framework allocator: peak reserved");
}

}  // namespace
}  // namespace kraken
