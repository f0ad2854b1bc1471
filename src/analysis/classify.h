// Kernel classification: is a kernel compute-bound, memory-bound or latency-bound?
//
// The basis, in order of preference:
//   roofline    FLOPs and DRAM bytes are known (Nsight Compute, CUPTI counters):
//               arithmetic intensity AI = FLOPs / DRAM bytes against the ridge point
//               (peak FLOP/s / peak bytes/s of the precision the kernel used). Below the
//               ridge the kernel is memory-side, above compute-side; if its achieved
//               throughput is under `latency_pct` of the roof on its side it is
//               latency-bound (neither roof is near).
//   throughput  only speed-of-light % are known (ncu SM% and DRAM%): the larger side wins
//               if it reaches `latency_pct`, else latency-bound (ncu's own rule: under 60 %
//               of peak "typically indicates latency issues").
//   name        nothing measured (Kineto traces, Orion lists): kernel-family rules on the
//               demangled name and launch size (GEMM/conv -> compute, elementwise/norm/
//               copy -> memory, tiny grids -> latency). Reported as a heuristic.
// With fixed thresholds (--thresholds 10,50) the scheme of older tools is used instead:
// AI < low -> memory, AI > high -> compute, else mixed; it needs AI.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/device.h"
#include "model/trace_events.h"

namespace kraken {

enum class Boundness { kCompute, kMemory, kLatency, kMixed, kUnknown };
enum class ClassificationBasis { kRoofline, kThroughput, kNameHeuristic, kFixedThresholds, kNone };

const char* BoundnessName(Boundness bound);             // "compute", "memory", ...
const char* ClassificationBasisName(ClassificationBasis basis);  // "roofline", ...

struct ClassifyOptions {
  double latency_pct = 60.0;
  // --thresholds LOW,HIGH: the fixed AI scheme (FLOP/byte).
  std::optional<double> fixed_low_ai;
  std::optional<double> fixed_high_ai;
};

// What a kernel launch looked like, for the name heuristic.
struct KernelLaunchInfo {
  std::string_view name;
  TimeNs duration_ns = 0;
  int64_t grid_blocks = 0;  // product of grid dims; 0 unknown
  int32_t device_sm_count = 0;  // 0 unknown
};

struct KernelClassification {
  Boundness bound = Boundness::kUnknown;
  ClassificationBasis basis = ClassificationBasis::kNone;
  std::optional<double> arithmetic_intensity;  // FLOP per DRAM byte
  std::optional<double> ridge_point;           // FLOP per byte where the roofs meet
  std::optional<double> achieved_flops_per_s;
  std::optional<double> achieved_dram_bytes_per_s;
  std::optional<double> compute_pct_of_peak;
  std::optional<double> memory_pct_of_peak;
  std::string precision;  // "fp32", "fp64", "fp16", "tensor", "" unknown
  std::string reason;     // one sentence: why this class
};

// `counters` may be null; `spec` (the device's catalog entry) may be null, in which
// case only peaks measured by the profiler are used.
KernelClassification ClassifyKernel(const KernelLaunchInfo& launch, const KernelCounters* counters,
                                    const DeviceSpec* spec, const ClassifyOptions& options = {});

}  // namespace kraken
