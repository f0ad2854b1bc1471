// Golden tests of the workload characterization on real traces: launch statistics,
// training vs inference, step time, tensor-core detection and the diagnoses.
#include "analysis/characterize.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/aggregate.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

std::vector<Profile> Import(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : std::vector<Profile>();
}

Profile ImportOne(const std::string& relative) {
  auto profiles = Import(relative);
  return profiles.empty() ? Profile() : std::move(profiles[0]);
}

const Diagnosis* Find(const WorkloadReport& r, const std::string& id) {
  for (const Diagnosis& d : r.diagnoses)
    if (d.id == id) return &d;
  return nullptr;
}

double Evidence(const Diagnosis& d, const std::string& key) {
  for (const auto& [k, v] : d.evidence)
    if (k == key) return v;
  ADD_FAILURE() << "no evidence " << key << " in " << d.id;
  return 0;
}

TEST(CharacterizeTest, MtiaLaunchOfCorrelation423) {
  // HTA's test: correlation 423 has cpu 435.2 µs, gpu 124.768 µs, launch delay 0: the
  // kernel starts before the launch call returns, so the delay clips to 0.
  Profile p = ImportOne("kineto/hta/mtia_trace_single_rank/mtia_rank_0.json.gz");
  auto kernel = std::find_if(p.kernels.begin(), p.kernels.end(), [](const Kernel& k) { return k.correlation_id == 423; });
  ASSERT_NE(kernel, p.kernels.end());
  EXPECT_EQ(kernel->duration_ns, 124768);
  auto call = std::find_if(p.runtime_calls.begin(), p.runtime_calls.end(),
                           [](const RuntimeCall& c) { return c.correlation_id == 423; });
  ASSERT_NE(call, p.runtime_calls.end());
  EXPECT_EQ(call->duration_ns, 435200);
  EXPECT_LT(kernel->start_ns, call->end_ns());
  LaunchStats stats = ComputeLaunchStats(p);
  EXPECT_EQ(stats.kernels, 3453);
  EXPECT_EQ(stats.linked_kernels, 3453);
  EXPECT_GE(stats.launch_delay_ns.min, 0);
}

TEST(CharacterizeTest, ResnetTrainingWithDataLoaderStall) {
  Profile p = ImportOne("kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  WorkloadReport r = CharacterizeWorkload(p);
  EXPECT_EQ(r.workload_type.type, WorkloadType::kTraining);
  EXPECT_EQ(r.workload_type.confidence, "high");
  ASSERT_NE(r.device_spec, nullptr);
  EXPECT_EQ(r.device_spec->id, "v100-sxm2");
  EXPECT_EQ(r.sm_count, 80);
  // Step durations checked with numpy in distribution_test.cc.
  EXPECT_EQ(r.step_time_ns.count, 6);
  EXPECT_NEAR(r.step_time_ns.p50, 176273000.0, 1);
  EXPECT_EQ(r.launches.linked_kernels, 8772);
  EXPECT_EQ(r.kernels.kernel_count, 8772);
  EXPECT_EQ(r.kernels.kernel_time_ns, r.launches.kernel_time_ns);
  // FP32 cuDNN/cuBLAS kernels on a V100: no tensor-core kernel by name.
  EXPECT_EQ(r.kernels.mix.tensor_core_ns, 0);
  EXPECT_EQ(r.kernels.mix.Dominant(), Boundness::kCompute);
  const Diagnosis* idle = Find(r, "gpu_idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_NE(idle->summary.find("data loader"), std::string::npos) << idle->summary;
  // enumerate(DataLoader) ops sum to 415,791 µs over the six steps (python over the file);
  // the host-side span is the first step's CPU start to the last GPU work of the steps,
  // 1,065,553 µs (the same window as tb_plugin's).
  EXPECT_NEAR(Evidence(*idle, "dataloader_pct"), 100.0 * 415791 / 1065553, 0.001);
  const Diagnosis* copies = Find(r, "host_to_device_copies");
  ASSERT_NE(copies, nullptr);
  EXPECT_EQ(Evidence(*copies, "pageable_copies"), 12);
  EXPECT_NE(Find(r, "no_tensor_cores"), nullptr);
}

TEST(CharacterizeTest, MoreLoaderWorkersRemoveTheInputStall) {
  Profile p = ImportOne("kineto/kineto_tb_plugin/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz");
  WorkloadReport r = CharacterizeWorkload(p);
  const Diagnosis* idle = Find(r, "gpu_idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->summary.find("data loader"), std::string::npos) << idle->summary;
  EXPECT_LT(r.main_window().idle_pct(), 30);
}

TEST(CharacterizeTest, ServingTracesAreInferenceAndRocmGemmsUseMatrixCores) {
  Profile p = ImportOne("kineto/tracelens/inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz");
  WorkloadReport r = CharacterizeWorkload(p);
  EXPECT_EQ(r.workload_type.type, WorkloadType::kInference);
  EXPECT_EQ(r.workload_type.confidence, "high");
  EXPECT_GT(r.workload_type.counts.serving_ops, 0);
  EXPECT_EQ(r.workload_type.counts.backward_ops, 0);
  // hipBLASLt/Tensile GEMMs (…_MI16x16x1_…) run on MFMA matrix cores.
  EXPECT_GT(r.kernels.mix.Pct(r.kernels.mix.tensor_core_ns), 80);
  EXPECT_EQ(Find(r, "no_tensor_cores"), nullptr);
}

TEST(CharacterizeTest, DistributedTrainingShowsExposedCommunication) {
  Profile p = ImportOne("kineto/hta/nccl_parser_config/nccl_data.json.gz");
  WorkloadReport r = CharacterizeWorkload(p);
  EXPECT_EQ(r.workload_type.type, WorkloadType::kTraining);
  EXPECT_GT(r.workload_type.counts.gradient_allreduce, 0);
  const Diagnosis* comm = Find(r, "exposed_communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_GT(Evidence(*comm, "exposed_comm_us"), 0);
  EXPECT_LE(Evidence(*comm, "exposed_comm_us"), Evidence(*comm, "comm_us"));
}

TEST(CharacterizeTest, KernelListsWithoutOperatorsDoNotGuessTheWorkload) {
  Profile p = ImportOne("orion/resnet50_4_fwd.csv");
  WorkloadReport r = CharacterizeWorkload(p);
  EXPECT_EQ(r.workload_type.type, WorkloadType::kUnknown);
  EXPECT_EQ(r.timeline.trace.total_ns, 0);  // durations only: no timeline
  EXPECT_TRUE(r.diagnoses.empty() || r.diagnoses.front().id == "kernel_bound");
  EXPECT_EQ(r.kernels.kernel_count, 175);
}

TEST(CharacterizeTest, AggregateOfEightDlrmRanks) {
  std::vector<Profile> ranks = Import("kineto/param/dlrm_kineto.tar.gz");
  ASSERT_EQ(ranks.size(), 8u);
  std::vector<WorkloadReport> reports;
  for (const Profile& p : ranks) reports.push_back(CharacterizeWorkload(p));
  std::vector<const WorkloadReport*> pointers;
  int64_t kernels = 0;
  for (const WorkloadReport& r : reports) {
    pointers.push_back(&r);
    kernels += r.kernels.kernel_count;
  }
  AggregateReport all = Aggregate(pointers, 5);
  EXPECT_EQ(all.profiles, 8);
  EXPECT_EQ(all.type, WorkloadType::kTraining);
  EXPECT_EQ(all.kernel_count, kernels);
  ASSERT_EQ(all.top_kernels.size(), 5u);
  EXPECT_GE(all.top_kernels[0].total_ns, all.top_kernels[1].total_ns);
}

TEST(CharacterizeTest, TensorCoreNamesAndFalseFriends) {
  EXPECT_TRUE(NameUsesTensorCores("volta_h884gemm_64x64_ldg8_nn"));
  EXPECT_TRUE(NameUsesTensorCores("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn"));
  EXPECT_TRUE(NameUsesTensorCores("void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu>(Params)"));
  EXPECT_TRUE(NameUsesTensorCores("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"));
  EXPECT_TRUE(NameUsesTensorCores("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI16x16x1_SN"));
  EXPECT_TRUE(NameUsesTensorCores("igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16"));
  EXPECT_FALSE(NameUsesTensorCores("SubTensorOpWithCastTensor1d"));
  EXPECT_FALSE(NameUsesTensorCores("volta_sgemm_64x64_nt"));
  EXPECT_FALSE(NameUsesTensorCores("void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>"));
  EXPECT_FALSE(NameUsesTensorCores("Cijk_Ailk_Bljk_SB_MT64x64x8_SN_minimal"));
}

}  // namespace
}  // namespace kraken
