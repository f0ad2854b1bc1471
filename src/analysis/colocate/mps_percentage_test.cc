// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE from the co-location model's MPS split, on real
// inputs: the two ResNet-50 training traces of kineto_tb_plugin (V100) and the A100
// capture's DCGM demand.
#include "analysis/colocate/mps_percentage.h"

#include <gtest/gtest.h>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/colocate_test_util.h"

namespace kraken {
namespace {

ColocationWorkload MpsWorkloadOf(const char* file, const std::string& name) {
  for (WorkloadDemand& d : testing::DemandsOfFile(file, nullptr)) {
    d.name = name;
    return BuildColocationWorkload(d, {}, ColocationParameters{});
  }
  ADD_FAILURE() << "no demand in " << file;
  return {};
}

TEST(MpsPercentage, TheModelsSplitAsWholePercentages) {
  std::vector<ColocationWorkload> ws = {
      MpsWorkloadOf("kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", "w0"),
      MpsWorkloadOf("kineto/kineto_tb_plugin/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz", "w4")};
  const DeviceSpec* v100 = FindDeviceSpec("v100-sxm2");
  std::vector<int> p = MpsThreadPercentages(ws, v100);
  ASSERT_EQ(p.size(), 2u);
  // The same split PredictColocation suggests, rounded.
  ColocateOptions options;
  options.modes = {SharingMode::kMps};
  options.device = v100;
  ColocationReport report = PredictColocation(ws, options);
  ASSERT_EQ(report.modes.size(), 1u);
  EXPECT_TRUE(report.modes[0].split_suggested);
  EXPECT_EQ(p[0], static_cast<int>(std::lround(report.modes[0].sm_shares[0] * 100)));
  EXPECT_EQ(p[1], static_cast<int>(std::lround(report.modes[0].sm_shares[1] * 100)));
  // Two trainers at 55 % and 69 % of the SMs: capping either only slows it; no cap.
  EXPECT_EQ(p, (std::vector<int>{100, 100}));
  // vLLM decode (inference) with the first trainer: a 55 / 45 split serves both best.
  std::vector<ColocationWorkload> mixed = {
      MpsWorkloadOf("kineto/tracelens/inference/vllm_decode_full/graph_execution.json.gz", "vllm"), ws[0]};
  EXPECT_EQ(MpsThreadPercentages(mixed, nullptr), (std::vector<int>{55, 45}));
  EXPECT_TRUE(MpsThreadPercentages({ws[0]}, v100).empty());  // alone: no split
}

}  // namespace
}  // namespace kraken
