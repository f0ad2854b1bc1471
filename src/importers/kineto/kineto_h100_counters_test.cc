// Golden test of the Kineto importer on kraken's CUPTI trace with per-kernel counters,
// recorded on a real NVIDIA H100 (examples/nvidia-h100-80gb-hbm3/kernel-mix.counters.cupti
// .json.gz: scripts/gpu_validate/kernel_mix.cu, 20 iterations, KRAKEN_CUPTI_COUNTERS=1 with
// batches of 16; docs/validation.md). Under kernel replay CUPTI gave all 109 kernel records
// no timestamps, so the trace holds the launches' counter ranges and no kernel event: each
// range must come back as its kernel. Expected values were read from the file with Python's
// gzip + json; the FLOPs are the kernels' arithmetic (sgemm: 2 x 1024^3; saxpy: one FMA per
// element of 64 Mi), which Nsight Compute measured alike in the same session.
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <string>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

// One recording of examples/nvidia-h100-80gb-hbm3, imported (an empty profile, failing the
// test, when it cannot be).
Profile ImportRecording(const std::string& file) {
  auto result = ImportFile(BuiltinImporters(), testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/" + file);
  EXPECT_TRUE(result.ok()) << file << ": " << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  return std::move((*result)[0]);
}

// kernel_mix.cu's kernels by the identifier in their symbol.
std::string KernelMixKernel(std::string_view symbol) {
  for (const char* name : {"saxpy", "sgemm_tiled", "hgemm_wmma", "reduce_sum", "tiny_kernel", "fill_half", "fill"})
    if (symbol.find(std::to_string(std::string_view(name).size()) + name) != std::string_view::npos) return name;
  return "";
}

TEST(KinetoH100CountersTest, EveryUntimedKernelComesBackFromItsCounterRange) {
  Profile p = ImportRecording("kernel-mix.counters.cupti.json.gz");
  EXPECT_EQ(p.metadata.attributes["kraken_cupti_records_without_timestamps"], "109");
  EXPECT_EQ(p.metadata.attributes["kraken_cupti_kernels"], "0");
  ASSERT_EQ(p.profiler_ranges.size(), 109u);
  ASSERT_EQ(p.kernels.size(), 109u);
  EXPECT_EQ(p.import_counters["kineto_kernels_from_counter_ranges"], 109);
  EXPECT_EQ(p.import_counters.count("kineto_kernels_from_counter_ranges_without_duration"), 0u);
  std::map<std::string, int> launches;
  for (const Kernel& k : p.kernels) {
    const std::string name = KernelMixKernel(p.Name(k.name));
    ASSERT_NE(name, "") << p.Name(k.name);
    ++launches[name];
    EXPECT_EQ(k.device, 0);
    EXPECT_GT(k.correlation_id, 0);
    ASSERT_GE(k.counters_index, 0);
  }
  EXPECT_EQ(launches, (std::map<std::string, int>{{"saxpy", 21}, {"sgemm_tiled", 21}, {"hgemm_wmma", 21},
                                                   {"reduce_sum", 21}, {"tiny_kernel", 21}, {"fill", 2},
                                                   {"fill_half", 2}}));
}

// Each kernel's counters and hardware duration are its own launch's, not a neighbour's
// (the shift a set run as a kernel caused before: range_profiler.h).
TEST(KinetoH100CountersTest, EachKernelHasItsOwnFlopsBytesAndDuration) {
  Profile p = ImportRecording("kernel-mix.counters.cupti.json.gz");
  struct Expected {
    double fp32_flops;
    double dram_min, dram_max;        // bytes, over the kernel's launches
    TimeNs duration_min, duration_max;  // gpu__time_duration.sum
  };
  const std::map<std::string, Expected> expected = {
      {"saxpy", {134217728, 807416576, 807884288, 290816, 294816}},
      {"sgemm_tiled", {2147483648, 18141952, 18617600, 244256, 245952}},
      {"hgemm_wmma", {0, 39421952, 39926016, 585888, 589856}},  // tensor-core work: no SASS FP op
      {"reduce_sum", {67378144, 288688128, 289283072, 127552, 129696}},
      {"tiny_kernel", {1, 3584, 5376, 2496, 2848}},
      {"fill", {0, 263669504, 264155392, 89600, 90752}},
      {"fill_half", {0, 6504448, 6777856, 4768, 4864}},
  };
  ASSERT_EQ(p.kernels.size(), 109u);
  for (const Kernel& k : p.kernels) {
    const Expected& e = expected.at(KernelMixKernel(p.Name(k.name)));
    const KernelCounters& c = p.kernel_counters.at(static_cast<size_t>(k.counters_index));
    EXPECT_DOUBLE_EQ(c.fp32_flops.value_or(-1), e.fp32_flops) << p.Name(k.name) << " " << k.correlation_id;
    EXPECT_GE(c.dram_bytes.value_or(-1), e.dram_min) << p.Name(k.name);
    EXPECT_LE(c.dram_bytes.value_or(-1), e.dram_max) << p.Name(k.name);
    EXPECT_GE(k.duration_ns, e.duration_min) << p.Name(k.name);
    EXPECT_LE(k.duration_ns, e.duration_max) << p.Name(k.name);
  }
}

// PyTorch under the counters (docs/validation.md run 7: ResNet-50 training, 1 warm-up and 3
// measured steps, KRAKEN_CUPTI_COUNTERS_MAX_KERNELS=120): the first 120 kernels replayed
// and untimed, the 2824 after the limit traced as usual. The pairing of ranges with launches
// is checked by physics rather than by name (the name comes with the launch): every GEMM or
// convolution (cuBLAS/cuDNN xmma, CUTLASS tensorop) kept the tensor pipes 13-54 % busy,
// every other kernel under 2 % (the first two kernels measured 1.2 %).
TEST(KinetoH100CountersTest, PyTorchKernelsGetTheirOwnCountersUpToTheLimit) {
  const Profile p = ImportRecording("resnet50-train-counters.cupti.json.gz");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_counter_limit_reached"), "true");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_counter_ranges_unmatched"), "0");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_counter_ranges_dropped"), "0");
  ASSERT_EQ(p.profiler_ranges.size(), 120u);
  EXPECT_EQ(p.kernels.size(), 2824u + 120u);
  EXPECT_EQ(p.import_counters.at("kineto_kernels_from_counter_ranges"), 120);
  int with_counters = 0, tensor_kernels = 0;
  for (const Kernel& k : p.kernels) {
    if (k.counters_index < 0) continue;
    ++with_counters;
    const std::string name(p.Name(k.name));
    const bool tensor_work = name.find("xmma") != std::string::npos || name.find("tensorop") != std::string::npos;
    tensor_kernels += tensor_work;
    const double tensor_pct = p.kernel_counters.at(static_cast<size_t>(k.counters_index)).tensor_pipe_active_pct.value_or(-1);
    if (tensor_work) {
      EXPECT_GT(tensor_pct, 10) << name << " " << k.correlation_id;
    } else {
      EXPECT_LT(tensor_pct, 2) << name << " " << k.correlation_id;
    }
    EXPECT_GT(k.duration_ns, 2000) << name;
  }
  EXPECT_EQ(with_counters, 120);
  EXPECT_GE(tensor_kernels, 20);
}

// The same program traced without counters (run 5, `kraken profile --kernels`): CUPTI's
// MEMORY2 records of its 9 cudaMalloc/cudaFree pairs become GPU 0's allocated-bytes series,
// step by step: 2 x 256 MiB vectors, 3 x 4 MiB fp32 matrices, 2 x 8 MiB fp16 and one 16 MiB
// fp32 matrix, a 4-byte sum; then freed in the same order.
TEST(KinetoH100CountersTest, RealMemoryRecordsGiveTheAllocatedBytesStepByStep) {
  const Profile p = ImportRecording("kernel-mix-memory.cupti.json.gz");
  EXPECT_EQ(p.kernels.size(), 109u);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_allocations"), "9");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_releases"), "9");
  ASSERT_EQ(p.series.size(), 1u);
  const Series& memory = p.series[0];
  EXPECT_EQ(memory.metric, Metric::kCudaAllocatedBytes);
  EXPECT_EQ(memory.entity.gpu_index, 0);
  constexpr double kMiB = 1 << 20;
  const double expected[] = {256 * kMiB, 512 * kMiB, 516 * kMiB, 520 * kMiB, 524 * kMiB, 532 * kMiB,
                             540 * kMiB, 556 * kMiB, 556 * kMiB + 4, 300 * kMiB + 4, 44 * kMiB + 4, 40 * kMiB + 4,
                             36 * kMiB + 4, 32 * kMiB + 4, 24 * kMiB + 4, 16 * kMiB + 4, 4, 0};
  ASSERT_EQ(memory.samples.size(), std::size(expected));
  for (size_t i = 0; i < memory.samples.size(); ++i) EXPECT_EQ(memory.samples[i].value, expected[i]) << i;
}

}  // namespace
}  // namespace kraken
