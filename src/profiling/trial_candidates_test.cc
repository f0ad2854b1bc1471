// Candidate enumeration of `kraken trial` on synthetic GPU lists shaped like the replay
// fixtures (NVML names, UUIDs, MIG profiles as the sampler reports them); the end-to-end
// enumeration on the real captures is in src/cli/trial_cli_test.cc.
#include "profiling/trial_candidates.h"

#include <gtest/gtest.h>

namespace kraken::profiling {
namespace {

constexpr int64_t kGiB = 1024LL * 1024 * 1024;

GpuForTrial Gpu(int32_t index, const std::string& uuid) {
  GpuForTrial gpu;
  gpu.device.index = index;
  gpu.device.name = "NVIDIA H100 80GB HBM3";
  gpu.device.uuid = uuid;
  gpu.device.memory_bytes = 80 * kGiB;
  return gpu;
}

// h100-mig.nvml: GI 2 3g.40gb, GI 3 2g.20gb, GI 9 and 10 1g.10gb.
GpuForTrial MigGpu(int32_t index) {
  GpuForTrial gpu = Gpu(index, "GPU-m");
  gpu.device.mig_enabled = true;
  std::vector<std::pair<int32_t, std::string>> instances = {{2, "3g.40gb"}, {3, "2g.20gb"}, {9, "1g.10gb"},
                                                            {10, "1g.10gb"}};
  for (size_t i = 0; i < instances.size(); ++i) {
    MigInstance m;
    m.gpu_instance_id = instances[i].first;
    m.compute_instance_id = 0;
    m.profile = instances[i].second;
    gpu.device.mig_instances.push_back(m);
    gpu.mig_uuids.push_back("MIG-" + std::to_string(i));
  }
  return gpu;
}

std::vector<std::string> Uuids(const std::vector<TrialCandidate>& candidates) {
  std::vector<std::string> uuids;
  for (const TrialCandidate& c : candidates) uuids.push_back(c.uuid);
  return uuids;
}

TEST(TrialCandidatesTest, AutoTakesWholeGpusAndTheInstancesOfMigGpus) {
  auto candidates = EnumerateCandidates({Gpu(0, "GPU-a"), MigGpu(1), Gpu(2, "GPU-c")}, "auto");
  ASSERT_TRUE(candidates.ok()) << candidates.status().message();
  EXPECT_EQ(Uuids(*candidates),
            (std::vector<std::string>{"GPU-a", "MIG-0", "MIG-1", "MIG-2", "MIG-3", "GPU-c"}));
  const TrialCandidate& whole = (*candidates)[0];
  EXPECT_EQ(whole.catalog_id, "h100-sxm");
  EXPECT_EQ(whole.gpu_fraction, 1.0);
  EXPECT_EQ(whole.mig_profile, "");
  const TrialCandidate& slice = (*candidates)[3];  // 1g.10gb in GI 9 of GPU 1
  EXPECT_EQ(slice.gpu_index, 1);
  EXPECT_EQ(slice.gpu_instance_id, 9);
  EXPECT_EQ(slice.mig_profile, "1g.10gb");
  EXPECT_DOUBLE_EQ(*slice.gpu_fraction, 1.0 / 7);
  EXPECT_EQ(slice.fraction_basis, "1 of 7 compute slices (h100-sxm 1g.10gb)");
  EXPECT_DOUBLE_EQ(*(*candidates)[1].gpu_fraction, 3.0 / 7);
  EXPECT_DOUBLE_EQ(*(*candidates)[2].gpu_fraction, 2.0 / 7);
}

TEST(TrialCandidatesTest, ListKeepsTheOrderGivenAndAcceptsIndexesAndUuids) {
  auto candidates = EnumerateCandidates({Gpu(0, "GPU-a"), MigGpu(1), Gpu(2, "GPU-c")}, " 2, mig-2 ,GPU-a");
  ASSERT_TRUE(candidates.ok()) << candidates.status().message();
  EXPECT_EQ(Uuids(*candidates), (std::vector<std::string>{"GPU-c", "MIG-2", "GPU-a"}));
}

TEST(TrialCandidatesTest, ListErrorsNameTheItem) {
  std::vector<GpuForTrial> gpus = {Gpu(0, "GPU-a"), MigGpu(1)};
  EXPECT_EQ(EnumerateCandidates(gpus, "0,7").status().message(),
            "--candidates: no GPU with index 7 (NVML reports 2)");
  EXPECT_EQ(EnumerateCandidates(gpus, "GPU-zz").status().message(),
            "--candidates: 'GPU-zz' is neither a GPU index nor a GPU or MIG UUID NVML reports");
  EXPECT_EQ(EnumerateCandidates(gpus, "1").status().message(),
            "--candidates: GPU 1 is in MIG mode; name its MIG instances instead: MIG-0, MIG-1, MIG-2, MIG-3");
  EXPECT_EQ(EnumerateCandidates(gpus, "0,GPU-a").status().message(),
            "--candidates: 'GPU-a' names GPU-a a second time");
  EXPECT_EQ(EnumerateCandidates(gpus, "0,,1").status().message(), "--candidates: empty item in '0,,1'");
  EXPECT_FALSE(EnumerateCandidates(gpus, "").ok());
  EXPECT_EQ(EnumerateCandidates({}, "auto").status().message(),
            "--candidates auto: NVML reports no GPU and no MIG instance to run on");
  std::vector<GpuForTrial> no_uuid = {Gpu(0, "")};
  EXPECT_EQ(EnumerateCandidates(no_uuid, "auto").status().message(),
            "GPU 0 has no UUID in NVML's answer: CUDA_VISIBLE_DEVICES cannot name it");
  // auto leaves out what it cannot name, and says so.
  GpuForTrial mig = MigGpu(1);
  mig.mig_uuids[2].clear();
  std::vector<std::string> skipped;
  auto partly = EnumerateCandidates({mig}, "auto", &skipped);
  ASSERT_TRUE(partly.ok());
  EXPECT_EQ(Uuids(*partly), (std::vector<std::string>{"MIG-0", "MIG-1", "MIG-3"}));
  EXPECT_EQ(skipped, (std::vector<std::string>{
                         "MIG 1g.10gb (GPU 1, GPU instance 9) has no UUID in NVML's answer: CUDA_VISIBLE_DEVICES "
                         "cannot name it"}));
}

TEST(TrialCandidatesTest, FractionsComeFromTheMigCatalogOrAreUnknown) {
  std::string basis;
  // h200-mig.nvml has two compute instances in one 3g.71gb GPU instance.
  EXPECT_DOUBLE_EQ(*MigGpuFraction("h200-sxm", "1c.3g.71gb", &basis), 1.0 / 7);
  EXPECT_EQ(basis, "1 of 7 compute slices (h200-sxm 3g.71gb, compute instance; memory shared)");
  EXPECT_DOUBLE_EQ(*MigGpuFraction("h200-sxm", "2c.3g.71gb", &basis), 2.0 / 7);
  EXPECT_DOUBLE_EQ(*MigGpuFraction("a100-80gb-sxm", "7g.80gb", &basis), 1.0);
  EXPECT_FALSE(MigGpuFraction("l40s", "1g.10gb", &basis));
  EXPECT_EQ(basis, "unknown: the MIG catalog has no geometry for l40s");
  EXPECT_FALSE(MigGpuFraction("h100-sxm", "5g.50gb", &basis));
  EXPECT_EQ(basis, "unknown: the MIG catalog of h100-sxm has no profile 5g.50gb");
  EXPECT_FALSE(MigGpuFraction("h100-sxm", "4c.3g.40gb", &basis));  // more slices than its GI
  EXPECT_FALSE(MigGpuFraction("", "1g.10gb", &basis));
}

}  // namespace
}  // namespace kraken::profiling
