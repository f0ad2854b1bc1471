// Kernel classification: is a kernel compute-bound, memory-bound or latency-bound?
//
// The basis, in order of preference:
//   roofline    FLOPs and DRAM bytes are known (Nsight Compute, CUPTI counters):
//               arithmetic intensity AI = FLOPs / DRAM bytes against the ridge point
//               (peak FLOP/s / peak bytes/s of the precision the kernel used most). At or
//               above the ridge the kernel is compute-side, below it memory-side; if its
//               achieved throughput is under `latency_pct` of the roof at its AI
//               (min(peak FLOP/s, AI x peak bytes/s)) it is latency-bound (neither roof is
//               near). Peaks: those the profiler measured (KernelCounters::peak_*) first,
//               else the catalog's datasheet peaks, rescaled from the published boost clock
//               to the measured SM clock when both are known (ncu locks clocks to base).
//   throughput  only speed-of-light % are known (ncu SM% and DRAM% or Memory%): the larger
//               side wins if it reaches `latency_pct`, else latency-bound (ncu's own rule:
//               under 60 % of peak "typically indicates latency issues"). With only one
//               side known and under the bar, nothing can be said on this basis.
//   name        nothing measured (Kineto traces, Orion lists): kernel-family rules on the
//               demangled name (see kernel_name_rules.h) and launch size (tiny grids and
//               very short kernels -> latency). Reported as a heuristic.
// With fixed thresholds (--thresholds 10,50) the scheme of older tools is used instead:
// AI < low -> memory, AI > high -> compute, else mixed; it needs AI, and kernels without
// one fall back to the chain above.
//
// `side` always says which roof the kernel sits under (compute or memory) when that is
// known, also when `bound` is latency: "latency-bound, memory side" reads as "a
// memory-side kernel that does not come near the bandwidth roof".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/boundness.h"
#include "model/device.h"
#include "model/trace_events.h"

namespace kraken {

enum class ClassificationBasis { kRoofline, kThroughput, kNameHeuristic, kFixedThresholds, kNone };

const char* ClassificationBasisName(ClassificationBasis basis);  // "roofline", ...

struct ClassifyOptions {
  // % of the roof (or of peak SM/DRAM throughput) under which a kernel is latency-bound.
  // 60 is Nsight Compute's SOLBottleneck threshold and Orion's.
  double latency_pct = 60.0;
  // --thresholds LOW,HIGH: the fixed AI scheme (FLOP/byte).
  std::optional<double> fixed_low_ai;
  std::optional<double> fixed_high_ai;
  // Name heuristic, launch size: a grid of fewer blocks than this fraction of the SMs
  // leaves most SMs idle for the whole kernel, so no roof can be reached.
  double tiny_grid_sm_fraction = 0.25;
  // Name heuristic: kernels shorter than this spend much of their life in grid ramp-up
  // and drain (block dispatch, first DRAM round trips of ~0.5 us).
  TimeNs short_kernel_ns = 2000;
};

// What a kernel launch looked like, for the name heuristic and achieved rates.
struct KernelLaunchInfo {
  std::string_view name;
  TimeNs duration_ns = 0;
  int64_t grid_blocks = 0;      // product of grid dims; 0 unknown
  int32_t device_sm_count = 0;  // 0 unknown
};

struct KernelClassification {
  Boundness bound = Boundness::kUnknown;
  // The roof the kernel sits under: kCompute, kMemory, or kUnknown when not known.
  Boundness side = Boundness::kUnknown;
  ClassificationBasis basis = ClassificationBasis::kNone;
  std::optional<double> arithmetic_intensity;  // FLOP per DRAM byte
  std::optional<double> ridge_point;           // FLOP per byte where the roofs meet
  std::optional<double> achieved_flops_per_s;
  std::optional<double> achieved_dram_bytes_per_s;
  std::optional<double> compute_pct_of_peak;
  std::optional<double> memory_pct_of_peak;
  std::optional<double> peak_flops_per_s;       // the compute roof used (roofline)
  std::optional<double> peak_dram_bytes_per_s;  // the memory roof used (roofline)
  std::string precision;  // "fp32", "fp64", "fp16", "tensor", "" unknown
  std::string name_rule;  // name heuristic: the kernel-family pattern that matched
  std::string reason;     // one sentence: why this class
};

// `counters` may be null; `spec` (the device's catalog entry) may be null, in which
// case only peaks measured by the profiler are used. Pure function; callers that classify
// many launches of the same kernel may cache by name.
KernelClassification ClassifyKernel(const KernelLaunchInfo& launch, const KernelCounters* counters,
                                    const DeviceSpec* spec, const ClassifyOptions& options = {});

}  // namespace kraken
