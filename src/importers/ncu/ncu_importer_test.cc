// Golden tests of the Nsight Compute importer on the real exports in shared/data/ncu.
// Expected values were read from the files with Python's csv module; derived ones
// (sums, products) are written as the arithmetic on those printed values.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "importers/import_testing.h"

namespace kraken {
namespace {

using testing::ImportCounter;
using testing::ImportOne;

constexpr char kA100[] = "ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv";
constexpr char kGtx1080Raw[] = "ncu/gtx1080-cc6.1_vectoradd_page-raw_all-metrics.csv";
constexpr char kGemvDetails[] = "ncu/rtx5090-cc12.0_gemv-bf16_memory-bound_kernel_0001_details.csv";
constexpr char kGemvMetrics[] = "ncu/rtx5090-cc12.0_gemv-bf16_memory-bound_kernel_0001_metrics.csv";
constexpr char kGemvRoofline[] =
    "ncu/rtx5090-cc12.0_gemv-bf16_memory-bound_kernel_0001_section_SpeedOfLight_RooflineChart.csv";
constexpr char kCutlassDetails[] = "ncu/rtx5090-cc12.0_cutlass-bf16-gemm_compute-bound_kernel_0016_details.csv";
constexpr char kCutlassMetrics[] = "ncu/rtx5090-cc12.0_cutlass-bf16-gemm_compute-bound_kernel_0016_metrics.csv";
constexpr char kFmhaDetails[] = "ncu/rtx5090-cc12.0_fmha-bf16_balanced_kernel_0009_details.csv";
constexpr char kGemvName[] =
    "enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, 0, 1, 1, 0, "
    "7, 0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, "
    "cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, "
    "float>>(T13)";

const KernelCounters& CountersOf(const Profile& p, size_t kernel) {
  static const KernelCounters kNone;
  if (kernel >= p.kernels.size()) return kNone;
  int32_t index = p.kernels[kernel].counters_index;
  EXPECT_GE(index, 0);
  if (index < 0 || static_cast<size_t>(index) >= p.kernel_counters.size()) return kNone;
  return p.kernel_counters[static_cast<size_t>(index)];
}

TEST(NcuImporterTest, EveryFileInTheFolderImports) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::DataDir() + "/ncu")) {
    std::string path = entry.path().string();
    if (!path.ends_with(".csv")) continue;
    auto result = ImportFile(BuiltinImporters(), path);
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_EQ(result->size(), 1u) << path;
    const Profile& p = (*result)[0];
    EXPECT_FALSE(p.metadata.kernel_timestamps_valid) << path;
    if (path.ends_with("classification_summary.csv")) {
      EXPECT_EQ(p.metadata.format, "kernel-labels");
    } else {
      EXPECT_EQ(p.metadata.format, "ncu-csv") << path;
      EXPECT_FALSE(p.kernels.empty()) << path;
      for (const Kernel& k : p.kernels) EXPECT_EQ(k.start_ns, 0) << path;
      EXPECT_EQ(ImportCounter(p, "ncu_unknown_units"), 0) << path;
      EXPECT_EQ(ImportCounter(p, "ncu_short_rows"), 0) << path;
    }
    ++files;
  }
  EXPECT_EQ(files, 10);
}

TEST(NcuImporterTest, A100SgemmRooflineMetrics) {
  Profile p = ImportOne(kA100);
  ASSERT_EQ(p.kernels.size(), 3u);
  EXPECT_EQ(p.Name(p.kernels[0].name), "void randomInit<float>(T1 *, int, int, unsigned int)");
  EXPECT_EQ(p.Name(p.kernels[1].name), "void randomInit<float>(T1 *, int, int, unsigned int)");
  EXPECT_EQ(p.Name(p.kernels[2].name), "void gemm_v1<float>(float *, float *, float *, int, int, int)");
  EXPECT_EQ(p.kernels[0].grid, (Dim3{640, 1280, 1}));
  EXPECT_EQ(p.kernels[1].grid, (Dim3{1280, 640, 1}));
  EXPECT_EQ(p.kernels[2].grid, (Dim3{1280, 1280, 1}));
  EXPECT_EQ(p.kernels[2].block, (Dim3{32, 32, 1}));
  EXPECT_EQ(p.kernels[2].stream, 7);
  EXPECT_EQ(p.kernels[2].device, 0);
  // No duration metric in this set: smsp__cycles_elapsed.avg / .avg.per_second.
  EXPECT_EQ(p.kernels[0].duration_ns, 6725598880);  // 5,145,083,088.72 / 764,999,991.90
  EXPECT_EQ(p.kernels[1].duration_ns, 6711477280);
  EXPECT_EQ(p.kernels[2].duration_ns, 33477741504);  // 25,610,472,227.46 / 764,999,999.31
  EXPECT_EQ(ImportCounter(p, "ncu_durations_from_cycles"), 3);

  const KernelCounters& init = CountersOf(p, 0);
  EXPECT_EQ(init.fp32_flops, 2.0 * 838860800);  // fadd 0 + fmul 0 + 2 x ffma 838,860,800
  EXPECT_EQ(init.fp64_flops, 0.0);
  EXPECT_EQ(init.dram_bytes, 5323503232.0);
  EXPECT_EQ(init.l2_bytes, 693482995584.0);
  EXPECT_EQ(init.l1_bytes, 16840298332000.0);
  EXPECT_DOUBLE_EQ(*init.sm_clock_hz, 764999991.90);
  EXPECT_FALSE(init.tensor_flops.has_value());  // only an instruction count was collected
  EXPECT_FALSE(init.peak_fp32_flops_per_s.has_value());

  const KernelCounters& gemm = CountersOf(p, 2);
  EXPECT_EQ(gemm.fp32_flops, 2.0 * 34359738368000);  // 68,719,476,736,000
  EXPECT_EQ(gemm.fp16_flops, 2.0 * 2149161369600);   // hfma 2,149,161,369,600
  EXPECT_EQ(gemm.fp64_flops, 0.0);
  EXPECT_EQ(gemm.dram_bytes, 807658682624.0);
  EXPECT_EQ(gemm.l2_bytes, 40927345510272.0);

  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].index, 0);
  EXPECT_EQ(p.devices[0].compute_major, 8);
  EXPECT_EQ(p.devices[0].compute_minor, 0);
  EXPECT_EQ(p.devices[0].vendor, Vendor::kNvidia);
  EXPECT_EQ(p.metadata.attributes.at("ncu_layout"), "details");
  EXPECT_EQ(p.metadata.attributes.at("process_name"), "profile");
}

TEST(NcuImporterTest, Rtx5090GemvDetailsPage) {
  Profile p = ImportOne(kGemvDetails);
  ASSERT_EQ(p.kernels.size(), 1u);
  const Kernel& k = p.kernels[0];
  EXPECT_EQ(p.Name(k.name), kGemvName);
  EXPECT_EQ(k.duration_ns, 6750);  // "us", "6.75"
  EXPECT_EQ(k.grid, (Dim3{224, 1, 1}));
  EXPECT_EQ(k.block, (Dim3{32, 4, 1}));
  const KernelCounters& c = CountersOf(p, 0);
  EXPECT_DOUBLE_EQ(*c.dram_throughput_pct, 19.66);
  // The Gbyte/s "Memory Throughput" of Memory Workload Analysis (345.14) is not a percentage.
  EXPECT_DOUBLE_EQ(*c.memory_throughput_pct, 19.66);
  EXPECT_DOUBLE_EQ(*c.sm_throughput_pct, 9.15);
  EXPECT_DOUBLE_EQ(*c.achieved_occupancy_pct, 11.32);
  EXPECT_DOUBLE_EQ(*c.dram_bytes, 2.33e6);  // read 2.33 Mbyte + write 0 byte
  EXPECT_EQ(c.tensor_flops, 0.0);
  EXPECT_DOUBLE_EQ(*c.sm_clock_hz, 1.99e9);
  EXPECT_DOUBLE_EQ(*c.dram_clock_hz, 13.72e9);
  EXPECT_EQ(ImportCounter(p, "ncu_rule_rows"), 4);
  EXPECT_EQ(ImportCounter(p, "ncu_non_numeric_values"), 3);  // n/a: flop_count_hp/sp, src_bf16_dst_bf16
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].compute_major, 12);
  EXPECT_EQ(p.devices[0].compute_minor, 0);
}

TEST(NcuImporterTest, Rtx5090GemvMetricsList) {
  Profile p = ImportOne(kGemvMetrics);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.Name(p.kernels[0].name), kGemvName);
  EXPECT_EQ(p.kernels[0].duration_ns, 6750);
  const KernelCounters& c = CountersOf(p, 0);
  EXPECT_DOUBLE_EQ(*c.dram_throughput_pct, 19.66);
  EXPECT_DOUBLE_EQ(*c.sm_throughput_pct, 9.15);
  EXPECT_FALSE(c.memory_throughput_pct.has_value());
  EXPECT_EQ(ImportCounter(p, "ncu_rule_rows"), 4);
}

TEST(NcuImporterTest, CutlassGemmTensorOps) {
  for (const char* file : {kCutlassDetails, kCutlassMetrics}) {
    Profile p = ImportOne(file);
    ASSERT_EQ(p.kernels.size(), 1u) << file;
    EXPECT_EQ(p.Name(p.kernels[0].name),
              "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_32x3_tn_align8>(Params)");
    EXPECT_EQ(p.kernels[0].duration_ns, 404700);
    EXPECT_EQ(p.kernels[0].grid, (Dim3{304, 1, 1}));
    EXPECT_EQ(p.kernels[0].block, (Dim3{256, 1, 1}));
    const KernelCounters& c = CountersOf(p, 0);
    EXPECT_EQ(c.tensor_flops, 45902462976.0);  // sm__ops_path_tensor_src_bf16_dst_fp32.sum
    EXPECT_NEAR(*c.dram_bytes, 63.77e6 + 197.38e3, 1e-3);  // 63.77 Mbyte + 197.38 Kbyte
    EXPECT_DOUBLE_EQ(*c.sm_throughput_pct, 32.46);
    EXPECT_DOUBLE_EQ(*c.dram_throughput_pct, 8.96);
  }
  Profile details_profile = ImportOne(kCutlassDetails);
  const KernelCounters& details = CountersOf(details_profile, 0);
  EXPECT_DOUBLE_EQ(*details.memory_throughput_pct, 25.75);
  EXPECT_DOUBLE_EQ(*details.achieved_occupancy_pct, 16.66);
  EXPECT_DOUBLE_EQ(*details.sm_clock_hz, 2.00e9);
}

TEST(NcuImporterTest, FmhaDetailsPage) {
  Profile p = ImportOne(kFmhaDetails);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.Name(p.kernels[0].name),
            "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(AttentionKernel<bfloat16_t, Sm80, 1, 64, 64, 64, 1, "
            "1>::Params)");
  EXPECT_EQ(p.kernels[0].duration_ns, 160740);
  EXPECT_EQ(p.kernels[0].grid, (Dim3{4, 12, 54}));
  const KernelCounters& c = CountersOf(p, 0);
  EXPECT_DOUBLE_EQ(*c.sm_throughput_pct, 36.75);
  EXPECT_DOUBLE_EQ(*c.dram_throughput_pct, 37.26);
  EXPECT_EQ(c.tensor_flops, 10192158720.0);
  EXPECT_NEAR(*c.dram_bytes, 99.63e6 + 6.02e6, 1e-3);
  EXPECT_DOUBLE_EQ(*c.achieved_occupancy_pct, 30.81);
}

TEST(NcuImporterTest, RooflineSectionPeaks) {
  Profile p = ImportOne(kGemvRoofline);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.Name(p.kernels[0].name), kGemvName);
  // The section has no duration; none is made up.
  EXPECT_EQ(p.kernels[0].duration_ns, 0);
  EXPECT_EQ(ImportCounter(p, "ncu_kernels_without_duration"), 1);
  const KernelCounters& c = CountersOf(p, 0);
  // "Theoretical Predicated-On FFMA Operations" 43,520 (already 2 x 21,760 FFMA/cycle)
  // x "SM Frequency" 2.15 Ghz.
  EXPECT_DOUBLE_EQ(*c.peak_fp32_flops_per_s, 43520 * 2.15e9);
  EXPECT_DOUBLE_EQ(*c.peak_fp64_flops_per_s, 680 * 2.15e9);
  // "Theoretical DRAM Bytes Accessible" 128 byte/cycle x "DRAM Frequency" 13.72 Ghz.
  EXPECT_DOUBLE_EQ(*c.peak_dram_bytes_per_s, 128 * 13.72e9);
  EXPECT_DOUBLE_EQ(*c.sm_clock_hz, 2.15e9);
  EXPECT_DOUBLE_EQ(*c.dram_clock_hz, 13.72e9);
  EXPECT_FALSE(c.fp32_flops.has_value());
  EXPECT_EQ(ImportCounter(p, "ncu_rule_rows"), 1);
}

TEST(NcuImporterTest, Gtx1080RawPageWithUnitsRow) {
  Profile p = ImportOne(kGtx1080Raw);
  ASSERT_EQ(p.kernels.size(), 3u);
  EXPECT_EQ(p.metadata.attributes.at("ncu_layout"), "raw");
  const double dram_bytes[] = {7552 + 384, 3264 + 256, 2176 + 256};  // dram__read_bytes + dram__write_bytes
  const double sm_clock[] = {2122518382.35, 2118014705.88, 2132444852.94};  // gpc__frequency, hz
  const double dram_clock[] = {5458823529.41, 5458823529.41, 6447058823.53};
  for (size_t i = 0; i < 3; ++i) {
    const Kernel& k = p.kernels[i];
    EXPECT_EQ(p.Name(k.name), "vecAdd");
    EXPECT_EQ(k.duration_ns, 2720);  // gpu__time_duration, "nsecond", "2,720.00"
    EXPECT_EQ(k.stream, 7);
    EXPECT_EQ(k.device, 0);
    EXPECT_EQ(k.registers_per_thread, 8);
    EXPECT_EQ(k.shared_memory_bytes, 0);
    // Only launch__grid_size / launch__block_size totals: the shape is unknown.
    EXPECT_EQ(k.grid, (Dim3{0, 0, 0}));
    const KernelCounters& c = CountersOf(p, i);
    EXPECT_EQ(c.dram_bytes, dram_bytes[i]);
    EXPECT_DOUBLE_EQ(*c.sm_clock_hz, sm_clock[i]);
    EXPECT_DOUBLE_EQ(*c.dram_clock_hz, dram_clock[i]);
    EXPECT_DOUBLE_EQ(*c.achieved_occupancy_pct, 28.30);
  }
  // Per kernel: the display name and 7 instanced lists ("32.00; 32.00; ...").
  EXPECT_EQ(ImportCounter(p, "ncu_non_numeric_values"), 24);
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceInfo& d = p.devices[0];
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.name, "NVIDIA GeForce GTX 1080");
  EXPECT_EQ(d.sm_count, 20);
  EXPECT_EQ(d.compute_major, 6);
  EXPECT_EQ(d.compute_minor, 1);
  EXPECT_EQ(d.memory_bytes, 8504934400);
  EXPECT_EQ(d.warp_size, 32);
  EXPECT_EQ(d.max_threads_per_sm, 2048);
  EXPECT_EQ(d.shared_memory_per_sm_bytes, 98304);
  EXPECT_DOUBLE_EQ(*d.max_sm_clock_mhz, 1759);
  EXPECT_DOUBLE_EQ(*d.max_mem_clock_mhz, 5005);
}

}  // namespace
}  // namespace kraken
