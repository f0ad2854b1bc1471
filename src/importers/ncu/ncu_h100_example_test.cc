// The Nsight Compute exports recorded on a real H100 (examples/nvidia-h100-80gb-hbm3/, by
// scripts/gpu-validate.sh): ncu 2025.3 answered "n/a" (details page) or nothing (raw page)
// for the fp16 tensor-path op counters of kernel_mix's WMMA GEMM while its tensor pipe did
// MMA work. The kernel's FLOPs are unknown, not 0, so kraken classifies it from throughputs;
// kernels whose tensor pipe only moved data keep their scalar counts.
#include <gtest/gtest.h>

#include <string>

#include "analysis/arithmetic_intensity.h"
#include "base/testing/test_data.h"
#include "importers/import_testing.h"
#include "importers/registry.h"

namespace kraken {
namespace {

Profile ImportH100Ncu(const std::string& name) {
  auto result = ImportFile(BuiltinImporters(), testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/" + name);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  return std::move((*result)[0]);
}

const KernelCounters* CountersNamed(const Profile& p, const std::string& part) {
  for (const Kernel& k : p.kernels)
    if (p.Name(k.name).find(part) != std::string::npos && k.counters_index >= 0)
      return &p.kernel_counters[static_cast<size_t>(k.counters_index)];
  return nullptr;
}

class NcuH100KernelMixTest : public ::testing::TestWithParam<const char*> {};

TEST_P(NcuH100KernelMixTest, TensorWorkNcuCouldNotCountLeavesTheFlopsUnknown) {
  Profile p = ImportH100Ncu(GetParam());
  ASSERT_EQ(p.kernels.size(), 5u);
  EXPECT_EQ(testing::ImportCounter(p, "ncu_tensor_flops_uncounted"), 1);
  const KernelCounters* wmma = CountersNamed(p, "hgemm_wmma");
  ASSERT_NE(wmma, nullptr);
  EXPECT_FALSE(wmma->tensor_flops.has_value());
  EXPECT_FALSE(wmma->fp32_flops.has_value());
  EXPECT_FALSE(wmma->fp16_flops.has_value());
  EXPECT_DOUBLE_EQ(wmma->dram_bytes.value_or(-1), 21625344);  // dram__bytes.sum
  EXPECT_TRUE(wmma->memory_throughput_pct.has_value());     // the throughput basis still has it
  // sgemm_tiled's 32,768 tensor-pipe instructions did no MMA: its FFMA count stands.
  const KernelCounters* sgemm = CountersNamed(p, "sgemm_tiled");
  ASSERT_NE(sgemm, nullptr);
  EXPECT_GT(sgemm->fp32_flops.value_or(0), 0);
}

INSTANTIATE_TEST_SUITE_P(DetailsAndRawPages, NcuH100KernelMixTest,
                         ::testing::Values("ncu-kernel-mix.csv", "ncu-kernel-mix-raw.csv"));

TEST(NcuH100ResnetTest, LayoutTransformsKeepTheirScalarCounts) {
  // cuDNN's nchwToNhwc: 802,816 tensor-pipe instructions and 1.17 % tensor-pipe cycles,
  // FMUL and HFMA work: data movement on the tensor pipe, not uncounted MMA work.
  Profile p = ImportH100Ncu("ncu-resnet50-train.csv");
  ASSERT_EQ(p.kernels.size(), 5u);
  EXPECT_EQ(testing::ImportCounter(p, "ncu_tensor_flops_uncounted"), 0);
  const KernelCounters* transform = CountersNamed(p, "nchwToNhwcKernel");
  ASSERT_NE(transform, nullptr);
  EXPECT_GT(transform->fp32_flops.value_or(0), 0);
}

}  // namespace
}  // namespace kraken
