// A whole workload's arithmetic intensity (FLOP per DRAM byte) from the counters a
// profiler measured (Nsight Compute, CUPTI range profiling): the FLOPs of every measured
// kernel or range over their DRAM bytes, i.e. the intensity of the work as one roofline
// point, not a mean of per-kernel ratios (a mean would let tiny kernels weigh as much as
// the GEMMs that dominate the traffic).
#pragma once

#include <cstdint>
#include <optional>

#include "model/profile.h"

namespace kraken {

struct WorkloadIntensity {
  double flops = 0;       // FP64 + FP32 + FP16 + tensor operations
  double dram_bytes = 0;
  int64_t measured = 0;   // kernels and ranges that had both counts
  double arithmetic_intensity() const { return dram_bytes > 0 ? flops / dram_bytes : 0; }
};

// Absent when no kernel or range has both a FLOP count and a non-zero DRAM byte count
// (Kineto traces, Orion lists, sampled profiles).
std::optional<WorkloadIntensity> MeasureWorkloadIntensity(const Profile& profile);

}  // namespace kraken
