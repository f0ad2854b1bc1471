#include "model/device_catalog.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

std::string Match(std::string_view name, int64_t memory = -1) {
  const DeviceSpec* spec = MatchDeviceSpec(name, memory);
  return spec ? spec->id : "none";
}

TEST(DeviceCatalogTest, RecognisesNamesAsToolsPrintThem) {
  // Names as they appear in the traces and captures of shared/data.
  EXPECT_EQ(Match("Tesla V100-SXM2-32GB"), "v100-sxm2");
  EXPECT_EQ(Match("Tesla V100-DGXS-32GB"), "v100-sxm2");
  EXPECT_EQ(Match("Tesla V100-PCIE-16GB"), "v100-pcie");
  EXPECT_EQ(Match("NVIDIA A100-SXM4-80GB"), "a100-80gb-sxm");
  EXPECT_EQ(Match("NVIDIA A100-PG509-200", 42505273344), "a100-40gb-sxm");
  EXPECT_EQ(Match("NVIDIA A100 80GB PCIe"), "a100-80gb-pcie");
  EXPECT_EQ(Match("NVIDIA H100 80GB HBM3"), "h100-sxm");
  EXPECT_EQ(Match("NVIDIA H100 PCIe"), "h100-pcie");
  EXPECT_EQ(Match("NVIDIA H200"), "h200-sxm");
  EXPECT_EQ(Match("NVIDIA L40S"), "l40s");
  EXPECT_EQ(Match("NVIDIA L4"), "l4");
  EXPECT_EQ(Match("Tesla T4"), "t4");
  EXPECT_EQ(Match("NVIDIA A10"), "a10");
  EXPECT_EQ(Match("AMD Instinct MI300X VF"), "mi300x");
  EXPECT_EQ(Match("AMD Instinct MI250X"), "mi250x-gcd");
}

TEST(DeviceCatalogTest, MatchesBlackwellAndCdna4Names) {
  EXPECT_EQ(Match("NVIDIA B200"), "b200");
  EXPECT_EQ(Match("NVIDIA GB200"), "gb200");  // not the plain B200 inside it
  EXPECT_EQ(Match("AMD Instinct MI355X"), "mi355x");
  const DeviceSpec* b200 = FindDeviceSpec("b200");
  ASSERT_NE(b200, nullptr);
  EXPECT_DOUBLE_EQ(b200->bf16_tensor_flops_per_s, 2250e12);  // dense: half the printed sparse 4.5 PF
  EXPECT_NEAR(b200->ridge_tensor16(), 281.25, 0.01);           // 2.25 PF / 8 TB/s
  const DeviceSpec* mi355x = FindDeviceSpec("mi355x");
  ASSERT_NE(mi355x, nullptr);
  EXPECT_EQ(mi355x->sm_count, 256);
  EXPECT_EQ(mi355x->tf32_tensor_flops_per_s, 0);  // CDNA 4 has no TF32 matrix type
}

TEST(DeviceCatalogTest, RefusesToGuessAmbiguousOrUnknownNames) {
  EXPECT_EQ(Match("AMD Radeon Graphics"), "none");  // MI210 or one MI250 GCD
  EXPECT_EQ(Match("NVIDIA A10G"), "none");          // not A10: different part
  EXPECT_EQ(Match("NVIDIA H100 NVL"), "none");
  EXPECT_EQ(Match("GeForce RTX 2080 Ti"), "none");
}

TEST(DeviceCatalogTest, PeaksAreDenseAndRidgesPlausible) {
  const DeviceSpec* h100 = FindDeviceSpec("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->bf16_tensor_flops_per_s, 989.4e12);  // not the sparse 1979
  EXPECT_NEAR(h100->ridge_fp32(), 20.0, 0.1);
  const DeviceSpec* a100 = FindDeviceSpec("NVIDIA A100-SXM4-40GB");
  ASSERT_NE(a100, nullptr);
  EXPECT_NEAR(a100->ridge_tensor16(), 200.6, 0.1);
  for (const DeviceSpec& spec : DeviceCatalog()) {
    EXPECT_GT(spec.dram_bytes_per_s, 0) << spec.id;
    EXPECT_GT(spec.fp32_flops_per_s, 0) << spec.id;
    EXPECT_GT(spec.sm_count, 0) << spec.id;
    EXPECT_FALSE(spec.source.empty()) << spec.id;
    EXPECT_GT(spec.boost_clock_mhz, 1000) << spec.id;
  }
}

}  // namespace
}  // namespace kraken
