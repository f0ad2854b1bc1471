// Kernel classification on kernels Nsight Compute measured. The ncu importer is another
// stage's work, so KernelCounters are filled by hand here from the values in
// shared/data/ncu/*.csv; each value says which file and metric it comes from.
#include "analysis/classify.h"

#include <gtest/gtest.h>

#include "model/device_catalog.h"

namespace kraken {
namespace {

// RTX 5090 (GB202, CC 12.0): not in the catalog, so written out here. Datasheet figures
// at boost clock: 170 SMs, 2407 MHz boost, 1,792 GB/s GDDR7, 104.8 TFLOP/s FP32,
// 209.5 TFLOP/s dense FP16/BF16 tensor with FP32 accumulate (GeForce parts run FP32
// accumulation at half the FP16-accumulate rate of 419 dense / 838.4 sparse).
DeviceSpec Rtx5090() {
  DeviceSpec spec;
  spec.id = "rtx5090";
  spec.name = "NVIDIA GeForce RTX 5090";
  spec.vendor = Vendor::kNvidia;
  spec.sm_count = 170;
  spec.dram_bytes_per_s = 1792e9;
  spec.fp32_flops_per_s = 104.8e12;
  spec.fp16_tensor_flops_per_s = 209.5e12;
  spec.bf16_tensor_flops_per_s = 209.5e12;
  spec.boost_clock_mhz = 2407;
  spec.source = "NVIDIA RTX Blackwell datasheet figures, FP32-accumulate tensor rate";
  return spec;
}

// rtx5090-cc12.0_gemv-bf16_memory-bound_kernel_0001: cuBLAS bf16 GEMV, grid (224,1,1).
KernelCounters GemvCounters() {
  KernelCounters c;
  c.dram_bytes = 2.33e6 + 0;  // metrics.csv dram__bytes_read.sum 2.33 Mbyte + _write.sum 0 byte
  c.tensor_flops = 0;         // sm__ops_path_tensor_src_bf16_dst_fp32.sum 0
  // section_SpeedOfLight_RooflineChart.csv, "Single Precision Achieved Value": (FFMA
  // operations per cycle 158.12 + FADD per cycle 1.97 + FMUL 0) x SM Frequency 2.15 GHz
  // = 344.2 GFLOP/s, over the 6.75 us duration.
  c.fp32_flops = (158.12 + 1.97) * 2.15e9 * 6.75e-6;
  c.sm_throughput_pct = 9.15;    // sm__throughput.avg.pct_of_peak_sustained_elapsed
  c.dram_throughput_pct = 19.66;  // dram__throughput.avg.pct_of_peak_sustained_elapsed
  c.sm_clock_hz = 1.99e9;        // details.csv SM Frequency
  // Roofline section peaks: Theoretical Predicated-On FFMA Operations 43,520 per cycle x
  // 2.15 GHz; Theoretical DRAM Bytes Accessible 128 byte/cycle x DRAM Frequency 13.72 GHz.
  c.peak_fp32_flops_per_s = 43520 * 2.15e9;
  c.peak_dram_bytes_per_s = 128 * 13.72e9;
  return c;
}
constexpr TimeNs kGemvNs = 6750;  // gpu__time_duration.sum 6.75 us

TEST(ClassifyTest, Names) {
  EXPECT_STREQ(BoundnessName(Boundness::kCompute), "compute");
  EXPECT_STREQ(BoundnessName(Boundness::kMemory), "memory");
  EXPECT_STREQ(BoundnessName(Boundness::kLatency), "latency");
  EXPECT_STREQ(BoundnessName(Boundness::kMixed), "mixed");
  EXPECT_STREQ(BoundnessName(Boundness::kUnknown), "unknown");
  EXPECT_STREQ(ClassificationBasisName(ClassificationBasis::kRoofline), "roofline");
  EXPECT_STREQ(ClassificationBasisName(ClassificationBasis::kThroughput), "throughput");
  EXPECT_STREQ(ClassificationBasisName(ClassificationBasis::kNameHeuristic), "name");
  EXPECT_STREQ(ClassificationBasisName(ClassificationBasis::kFixedThresholds), "thresholds");
  EXPECT_STREQ(ClassificationBasisName(ClassificationBasis::kNone), "none");
}

// The gemv is memory-side (AI ~1 FLOP/B) but moves only 345 GB/s, 19.7 % of the DRAM
// peak: kraken calls it latency-bound. llm-perf-opt labelled it memory_bound; ncu's own
// SOLBottleneck rule says "grid is too small to fill the available resources ... 0.7 full
// waves", which is the latency diagnosis.
TEST(ClassifyTest, Rtx5090GemvIsMemorySideButLatencyBound) {
  KernelCounters c = GemvCounters();
  DeviceSpec spec = Rtx5090();
  KernelClassification k = ClassifyKernel({"gemv", kGemvNs, 224, 170}, &c, &spec);
  EXPECT_EQ(k.basis, ClassificationBasis::kRoofline);
  EXPECT_EQ(k.precision, "fp32");
  EXPECT_EQ(k.side, Boundness::kMemory);
  EXPECT_EQ(k.bound, Boundness::kLatency);
  ASSERT_TRUE(k.arithmetic_intensity && k.ridge_point && k.memory_pct_of_peak && k.compute_pct_of_peak);
  EXPECT_NEAR(*k.arithmetic_intensity, 0.997, 0.001);
  EXPECT_NEAR(*k.ridge_point, 53.28, 0.01);
  // Our share of the measured DRAM peak agrees with ncu's own DRAM Throughput, 19.66 %.
  EXPECT_NEAR(*k.memory_pct_of_peak, 19.66, 0.01);
  EXPECT_NEAR(*k.compute_pct_of_peak, 0.368, 0.001);
  EXPECT_NEAR(*k.achieved_dram_bytes_per_s, 345.19e9, 0.01e9);
  EXPECT_DOUBLE_EQ(*k.peak_dram_bytes_per_s, 128 * 13.72e9);
  EXPECT_NE(k.reason.find("DRAM peak measured by the profiler"), std::string::npos) << k.reason;
  EXPECT_NE(k.reason.find("latency-bound"), std::string::npos) << k.reason;

  // With a lower latency bar the same kernel is memory-bound.
  ClassifyOptions lenient;
  lenient.latency_pct = 15;
  EXPECT_EQ(ClassifyKernel({"gemv", kGemvNs, 224, 170}, &c, &spec, lenient).bound, Boundness::kMemory);
}

// rtx5090-cc12.0_cutlass-bf16-gemm_compute-bound_kernel_0016: cutlass bf16 tensor-op GEMM.
KernelCounters CutlassGemmCounters() {
  KernelCounters c;
  c.tensor_flops = 45902462976;    // sm__ops_path_tensor_src_bf16_dst_fp32.sum
  c.dram_bytes = 63.77e6 + 197.38e3;  // dram__bytes_read.sum 63.77 Mbyte + _write.sum 197.38 Kbyte
  c.sm_throughput_pct = 32.46;
  c.dram_throughput_pct = 8.96;
  c.memory_throughput_pct = 25.75;  // details.csv Memory Throughput (L2-limited)
  c.sm_clock_hz = 2.00e9;           // details.csv SM Frequency 2.00 Ghz (ncu locks to base)
  c.peak_dram_bytes_per_s = 128 * 13.79e9;  // 128 B/cycle x details.csv DRAM Frequency 13.79 Ghz
  return c;
}
constexpr TimeNs kCutlassGemmNs = 404700;  // gpu__time_duration.sum 404.70 us

// The GEMM reaches 113.4 TFLOP/s: 65.2 % of the FP32-accumulate tensor peak at the 2.00 GHz
// ncu ran it at (209.5 x 2000/2407 = 174.1 TFLOP/s), so compute-bound. Against the
// datasheet figure at boost clock it would be 54 %, under the bar: the clock rescaling
// is what makes this answer right.
TEST(ClassifyTest, Rtx5090CutlassGemmIsComputeBoundAtTheMeasuredClock) {
  KernelCounters c = CutlassGemmCounters();
  DeviceSpec spec = Rtx5090();
  const char* name = "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_32x3_tn_align8>(Params)";
  KernelClassification k = ClassifyKernel({name, kCutlassGemmNs, 304, 170}, &c, &spec);
  EXPECT_EQ(k.basis, ClassificationBasis::kRoofline);
  EXPECT_EQ(k.precision, "tensor");
  EXPECT_EQ(k.side, Boundness::kCompute);
  EXPECT_EQ(k.bound, Boundness::kCompute);
  EXPECT_NEAR(*k.arithmetic_intensity, 717.6, 0.1);
  EXPECT_NEAR(*k.achieved_flops_per_s, 113.42e12, 0.01e12);
  EXPECT_NEAR(*k.peak_flops_per_s, 174.08e12, 0.01e12);
  EXPECT_NEAR(*k.compute_pct_of_peak, 65.16, 0.01);
  EXPECT_NEAR(*k.ridge_point, 98.62, 0.01);
  EXPECT_NEAR(*k.memory_pct_of_peak, 8.95, 0.01);  // ncu: DRAM Throughput 8.96 %
  EXPECT_NE(k.reason.find("dense 16-bit tensor peak of the NVIDIA GeForce RTX 5090 datasheet, scaled from its "
                          "2407 MHz boost clock to the measured 2000 MHz"),
            std::string::npos)
      << k.reason;

  // Without the clock the datasheet roof is too high: 54.1 % -> latency.
  KernelCounters no_clock = c;
  no_clock.sm_clock_hz.reset();
  KernelClassification at_boost = ClassifyKernel({name, kCutlassGemmNs, 304, 170}, &no_clock, &spec);
  EXPECT_EQ(at_boost.bound, Boundness::kLatency);
  EXPECT_NEAR(*at_boost.compute_pct_of_peak, 54.14, 0.01);

  // A measured tensor peak wins over the datasheet. ncu's SM throughput of 32.46 % hints
  // that it measures the tensor pipe against the full 419 TFLOP/s (FP16-accumulate) rate;
  // against that roof the GEMM would be 32.6 % of peak and latency-bound. Which roof is
  // right for FP32 accumulation is exactly what a measured peak would settle.
  KernelCounters measured = c;
  measured.peak_tensor_flops_per_s = 419e12 * 2000 / 2407;
  KernelClassification full_rate = ClassifyKernel({name, kCutlassGemmNs, 304, 170}, &measured, &spec);
  EXPECT_EQ(full_rate.bound, Boundness::kLatency);
  EXPECT_EQ(full_rate.side, Boundness::kCompute);
  EXPECT_NEAR(*full_rate.compute_pct_of_peak, 32.58, 0.01);
  EXPECT_NE(full_rate.reason.find("dense 16-bit tensor peak measured by the profiler"), std::string::npos);
}

// rtx5090-cc12.0_fmha-bf16_balanced_kernel_0009: cutlass FMHA bf16 (sm80 kernel).
KernelCounters FmhaCounters() {
  KernelCounters c;
  c.tensor_flops = 10192158720;     // sm__ops_path_tensor_src_bf16_dst_fp32.sum
  c.dram_bytes = 99.63e6 + 6.02e6;  // dram__bytes_read.sum 99.63 Mbyte + _write.sum 6.02 Mbyte
  c.sm_throughput_pct = 36.75;
  c.dram_throughput_pct = 37.26;
  c.memory_throughput_pct = 37.26;
  c.sm_clock_hz = 1.99e9;
  c.peak_dram_bytes_per_s = 128 * 13.78e9;  // DRAM Frequency 13.78 Ghz
  return c;
}
constexpr TimeNs kFmhaNs = 160740;  // gpu__time_duration.sum 160.74 us

// llm-perf-opt called the FMHA "balanced"; both roofs are at ~37 %: latency-bound, on
// the roofline and by ncu's 60 % throughput rule alike.
TEST(ClassifyTest, Rtx5090FmhaIsLatencyBound) {
  KernelCounters c = FmhaCounters();
  DeviceSpec spec = Rtx5090();
  const char* name = "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(AttentionKernel<bfloat16_t, Sm80, 1, 64, 64, 64, 1, 1>::Params)";
  KernelClassification k = ClassifyKernel({name, kFmhaNs, 4 * 12 * 54, 170}, &c, &spec);
  EXPECT_EQ(k.basis, ClassificationBasis::kRoofline);
  EXPECT_EQ(k.bound, Boundness::kLatency);
  // AI 96.5 FLOP/B sits just under the 98.2 ridge at 1.99 GHz: memory side, 37.26 % of DRAM.
  EXPECT_EQ(k.side, Boundness::kMemory);
  EXPECT_NEAR(*k.arithmetic_intensity, 96.47, 0.01);
  EXPECT_NEAR(*k.ridge_point, 98.20, 0.01);
  EXPECT_NEAR(*k.memory_pct_of_peak, 37.26, 0.01);
  EXPECT_NEAR(*k.compute_pct_of_peak, 36.61, 0.01);

  // Only the speed-of-light percentages (what ncu's default section gives).
  KernelCounters sol;
  sol.sm_throughput_pct = 36.75;
  sol.dram_throughput_pct = 37.26;
  KernelClassification t = ClassifyKernel({name, kFmhaNs, 0, 0}, &sol, nullptr);
  EXPECT_EQ(t.basis, ClassificationBasis::kThroughput);
  EXPECT_EQ(t.bound, Boundness::kLatency);
  EXPECT_EQ(t.side, Boundness::kMemory);
  EXPECT_DOUBLE_EQ(*t.compute_pct_of_peak, 36.75);
  EXPECT_DOUBLE_EQ(*t.memory_pct_of_peak, 37.26);
  EXPECT_EQ(t.reason, "SM throughput 36.8 %, DRAM throughput 37.3 % of peak: both under 60.0 % (latency-bound)");
}

// a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv, ID 2 "void gemm_v1<float>", grid
// (1280,1280,1): a naive SGEMM profiled with the NERSC roofline metrics at ncu's base clock.
KernelCounters A100SgemmCounters() {
  KernelCounters c;
  // 2 x smsp__sass_thread_inst_executed_op_ffma_pred_on.sum 34,359,738,368,000 (fadd, fmul 0)
  c.fp32_flops = 2 * 34359738368000.0;
  // 2 x ..._op_hfma_pred_on.sum 2,149,161,369,600 (hadd, hmul 0)
  c.fp16_flops = 2 * 2149161369600.0;
  c.fp64_flops = 0;  // dadd, dmul, dfma 0
  c.dram_bytes = 807658682624.0;  // dram__bytes.sum
  c.sm_clock_hz = 764999999.31;   // smsp__cycles_elapsed.avg.per_second
  return c;
}
// smsp__cycles_elapsed.avg 25,610,472,227.46 / per_second 764,999,999.31 = 33.478 s.
constexpr TimeNs kA100SgemmNs = 33477741504;

TEST(ClassifyTest, A100NaiveSgemmIsComputeSideButLatencyBound) {
  // The catalog A100 PCIe 40GB entry with its 1410 MHz boost clock: the 19.5 TFLOP/s FP32
  // datasheet peak becomes 10.58 TFLOP/s at the 765 MHz ncu ran at.
  DeviceSpec spec = *FindDeviceSpec("a100-40gb-pcie");
  spec.boost_clock_mhz = 1410;
  KernelCounters c = A100SgemmCounters();
  KernelClassification k = ClassifyKernel({"void gemm_v1<float>", kA100SgemmNs, 1280 * 1280, 108}, &c, &spec);
  EXPECT_EQ(k.basis, ClassificationBasis::kRoofline);
  EXPECT_EQ(k.precision, "fp32");  // FP32 FLOPs outnumber the FP16 ones 16:1
  EXPECT_NEAR(*k.arithmetic_intensity, 85.08, 0.01);
  EXPECT_NEAR(*k.peak_flops_per_s, 10.580e12, 0.001e12);
  EXPECT_NEAR(*k.ridge_point, 6.80, 0.01);
  EXPECT_EQ(k.side, Boundness::kCompute);
  // 2.05 TFLOP/s = 19.4 % of the roof: a naive GEMM waits on L1/L2, not on a roof.
  EXPECT_NEAR(*k.achieved_flops_per_s, 2.0527e12, 0.0001e12);
  EXPECT_NEAR(*k.compute_pct_of_peak, 19.40, 0.01);
  EXPECT_EQ(k.bound, Boundness::kLatency);

  // ncu's own peak formula (2 x 64 FFMA/cycle/SM x 108 SMs x 765 MHz) as a measured peak.
  KernelCounters measured = c;
  measured.peak_fp32_flops_per_s = 2.0 * 64 * 108 * 764999999.31;
  KernelClassification m = ClassifyKernel({"void gemm_v1<float>", kA100SgemmNs, 1280 * 1280, 108}, &measured, &spec);
  EXPECT_NEAR(*m.compute_pct_of_peak, 19.41, 0.01);
  EXPECT_EQ(m.bound, Boundness::kLatency);
  EXPECT_NE(m.reason.find("FP32 peak measured by the profiler"), std::string::npos) << m.reason;
}

// --thresholds 10,50 (the fixed AI scheme of older tools) on the same four kernels.
TEST(ClassifyTest, FixedThresholdsScheme) {
  ClassifyOptions fixed;
  fixed.fixed_low_ai = 10;
  fixed.fixed_high_ai = 50;
  DeviceSpec spec = Rtx5090();
  KernelCounters gemv = GemvCounters();
  KernelClassification k = ClassifyKernel({"gemv", kGemvNs, 224, 170}, &gemv, &spec, fixed);
  EXPECT_EQ(k.basis, ClassificationBasis::kFixedThresholds);
  EXPECT_EQ(k.bound, Boundness::kMemory);  // AI 1.0
  EXPECT_EQ(k.reason, "AI 0.997 FLOP/B is below 10.0 (fixed thresholds 10.0/50.0 FLOP/B)");
  KernelCounters gemm = CutlassGemmCounters();
  EXPECT_EQ(ClassifyKernel({"gemm", kCutlassGemmNs, 304, 170}, &gemm, &spec, fixed).bound, Boundness::kCompute);
  KernelCounters fmha = FmhaCounters();
  EXPECT_EQ(ClassifyKernel({"fmha", kFmhaNs, 2592, 170}, &fmha, &spec, fixed).bound, Boundness::kCompute);
  KernelCounters sgemm = A100SgemmCounters();
  EXPECT_EQ(ClassifyKernel({"sgemm", kA100SgemmNs, 0, 0}, &sgemm, nullptr, fixed).bound, Boundness::kCompute);

  KernelCounters between;
  between.fp32_flops = 2.0e9;
  between.dram_bytes = 1.0e8;  // AI 20
  KernelClassification mixed = ClassifyKernel({"k", 1000000, 0, 0}, &between, nullptr, fixed);
  EXPECT_EQ(mixed.bound, Boundness::kMixed);
  EXPECT_EQ(mixed.side, Boundness::kUnknown);
  EXPECT_DOUBLE_EQ(*mixed.arithmetic_intensity, 20);
  EXPECT_DOUBLE_EQ(*mixed.achieved_flops_per_s, 2.0e12);

  // Without AI the thresholds cannot apply: the usual chain answers, and says why.
  KernelClassification no_ai = ClassifyKernel({"volta_sgemm_128x64_nn", 50000, 400, 80}, nullptr, nullptr, fixed);
  EXPECT_EQ(no_ai.basis, ClassificationBasis::kNameHeuristic);
  EXPECT_EQ(no_ai.bound, Boundness::kCompute);
  EXPECT_EQ(no_ai.reason.rfind("no AI for the fixed thresholds; ", 0), 0u) << no_ai.reason;
}

TEST(ClassifyTest, ThroughputBasisNeedsASideAboveTheBarOrBothSides) {
  KernelCounters compute;
  compute.sm_throughput_pct = 85;
  compute.memory_throughput_pct = 40;
  compute.dram_throughput_pct = 20;
  KernelClassification k = ClassifyKernel({"k", 1000, 0, 0}, &compute, nullptr);
  EXPECT_EQ(k.basis, ClassificationBasis::kThroughput);
  EXPECT_EQ(k.bound, Boundness::kCompute);
  EXPECT_DOUBLE_EQ(*k.memory_pct_of_peak, 40);  // Memory% (the busiest memory unit) wins over DRAM%

  KernelCounters memory_only;
  memory_only.dram_throughput_pct = 91;
  EXPECT_EQ(ClassifyKernel({"k", 1000, 0, 0}, &memory_only, nullptr).bound, Boundness::kMemory);

  // SM% alone and low: the memory side might be saturated, so no throughput verdict;
  // the name decides instead.
  KernelCounters sm_only;
  sm_only.sm_throughput_pct = 12;
  KernelClassification by_name = ClassifyKernel({"BatchNorm", 50000, 0, 0}, &sm_only, nullptr);
  EXPECT_EQ(by_name.basis, ClassificationBasis::kNameHeuristic);
  EXPECT_EQ(by_name.bound, Boundness::kMemory);
}

TEST(ClassifyTest, RooflineNeedsPeaksAndDuration) {
  KernelCounters c = GemvCounters();
  c.peak_fp32_flops_per_s.reset();
  c.peak_dram_bytes_per_s.reset();
  // No measured peak and no device: throughput basis (both sides under 60 %).
  KernelClassification k = ClassifyKernel({"gemv", kGemvNs, 224, 170}, &c, nullptr);
  EXPECT_EQ(k.basis, ClassificationBasis::kThroughput);
  EXPECT_EQ(k.bound, Boundness::kLatency);
  // What the counters give without peaks is still filled in.
  EXPECT_NEAR(*k.arithmetic_intensity, 0.997, 0.001);
  EXPECT_NEAR(*k.achieved_dram_bytes_per_s, 345.19e9, 0.01e9);
  EXPECT_FALSE(k.ridge_point.has_value());

  // A copy: DRAM bytes but no floating-point work at all sits at AI 0, memory side.
  KernelCounters copy;
  copy.fp32_flops = 0;
  copy.dram_bytes = 1.6e9;
  DeviceSpec h100 = *FindDeviceSpec("h100-sxm");
  KernelClassification c2 = ClassifyKernel({"copy", 1000000, 100000, 132}, &copy, &h100);
  EXPECT_EQ(c2.basis, ClassificationBasis::kRoofline);
  EXPECT_EQ(c2.side, Boundness::kMemory);
  EXPECT_EQ(c2.bound, Boundness::kLatency);  // 1.6 TB/s of 3.35 TB/s = 47.8 %
  EXPECT_NEAR(*c2.memory_pct_of_peak, 47.76, 0.01);
  EXPECT_NE(c2.reason.find("no floating-point work counted"), std::string::npos);

  // CUDA-core FP16 has no catalog peak: no roofline.
  KernelCounters half;
  half.fp16_flops = 1e12;
  half.dram_bytes = 1e9;
  KernelClassification h = ClassifyKernel({"elementwise_kernel", 1000000, 100000, 132}, &half, &h100);
  EXPECT_EQ(h.basis, ClassificationBasis::kNameHeuristic);
  EXPECT_EQ(h.precision, "fp16");
  EXPECT_DOUBLE_EQ(*h.arithmetic_intensity, 1000);
}

TEST(ClassifyTest, NameHeuristicOnNcuKernelNames) {
  // The same three RTX 5090 kernels with nothing measured: grid sizes from the files.
  KernelClassification gemv = ClassifyKernel(
      {"enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, 0, 1, 1, 0, 7, "
       "0, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, "
       "cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>>(T13)",
       kGemvNs, 224, 170},
      nullptr, nullptr);
  EXPECT_EQ(gemv.basis, ClassificationBasis::kNameHeuristic);
  EXPECT_EQ(gemv.bound, Boundness::kMemory);
  EXPECT_EQ(gemv.name_rule, "gemv");
  KernelClassification gemm = ClassifyKernel(
      {"void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_32x3_tn_align8>(Params)", kCutlassGemmNs, 304,
       170},
      nullptr, nullptr);
  EXPECT_EQ(gemm.bound, Boundness::kCompute);
  EXPECT_EQ(gemm.name_rule, "gemm");
  KernelClassification fmha = ClassifyKernel({"fmha_cutlassF_bf16_aligned_64x64_rf_sm80", kFmhaNs, 2592, 170}, nullptr, nullptr);
  EXPECT_EQ(fmha.bound, Boundness::kCompute);
  EXPECT_EQ(fmha.side, Boundness::kCompute);
}

TEST(ClassifyTest, NameHeuristicLaunchSize) {
  // V100: 80 SMs, so grids under 20 blocks are tiny.
  KernelClassification tiny = ClassifyKernel({"void at::native::vectorized_elementwise_kernel", 3136, 1, 80}, nullptr, nullptr);
  EXPECT_EQ(tiny.bound, Boundness::kLatency);
  EXPECT_EQ(tiny.side, Boundness::kMemory);
  EXPECT_EQ(tiny.reason.rfind("grid of 1 blocks for 80 SMs leaves most SMs idle; name matches \"elementwise_kernel\"", 0), 0u)
      << tiny.reason;
  EXPECT_EQ(ClassifyKernel({"Conv", 26688, 19, 80}, nullptr, nullptr).bound, Boundness::kLatency);
  EXPECT_EQ(ClassifyKernel({"Conv", 26688, 20, 80}, nullptr, nullptr).bound, Boundness::kCompute);
  // Unknown SM count: the grid says nothing.
  EXPECT_EQ(ClassifyKernel({"Conv", 26688, 1, 0}, nullptr, nullptr).bound, Boundness::kCompute);

  KernelClassification short_kernel = ClassifyKernel({"volta_sgemm_128x64_nn", 1500, 400, 80}, nullptr, nullptr);
  EXPECT_EQ(short_kernel.bound, Boundness::kLatency);
  EXPECT_EQ(short_kernel.side, Boundness::kCompute);

  KernelClassification unknown = ClassifyKernel({"my_custom_kernel", 50000, 400, 80}, nullptr, nullptr);
  EXPECT_EQ(unknown.bound, Boundness::kUnknown);
  EXPECT_EQ(unknown.side, Boundness::kUnknown);
  EXPECT_EQ(unknown.reason, "no rule matched");
  KernelClassification tiny_unknown = ClassifyKernel({"my_custom_kernel", 50000, 4, 80}, nullptr, nullptr);
  EXPECT_EQ(tiny_unknown.bound, Boundness::kLatency);
  EXPECT_EQ(tiny_unknown.side, Boundness::kUnknown);

  // Collectives are never classified by name, whatever their grid (NCCL uses few blocks).
  KernelClassification nccl =
      ClassifyKernel({"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 500000, 2, 80}, nullptr, nullptr);
  EXPECT_EQ(nccl.bound, Boundness::kUnknown);
  EXPECT_EQ(nccl.name_rule, "nccl");
}

}  // namespace
}  // namespace kraken
