// Per-kernel-name statistics (top kernels by GPU time) and the time-weighted mix of
// compute-, memory- and latency-bound work over all kernels of a profile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/classify.h"
#include "analysis/intervals.h"
#include "model/device.h"
#include "model/profile.h"

namespace kraken {

struct KernelGroupStats {
  std::string name;
  int64_t count = 0;
  TimeNs total_ns = 0;
  TimeNs min_ns = 0;
  TimeNs max_ns = 0;
  double mean_ns = 0;
  double pct_of_kernel_time = 0;
  // The classification of the launches holding most of this group's time.
  KernelClassification classification;
  bool uses_tensor_cores = false;  // from the name (hmma/wgmma/tensorop/...) or counters
};

// Time-weighted shares of all kernel time by class.
struct BoundMix {
  TimeNs compute_ns = 0;
  TimeNs memory_ns = 0;
  TimeNs latency_ns = 0;
  TimeNs mixed_ns = 0;
  TimeNs unknown_ns = 0;
  TimeNs tensor_core_ns = 0;  // kernel time in kernels that use tensor cores
  // Kernel time classified from measurements (roofline/throughput) vs name rules only.
  TimeNs measured_basis_ns = 0;
  TimeNs name_basis_ns = 0;

  TimeNs classified_ns() const { return compute_ns + memory_ns + latency_ns + mixed_ns; }
  TimeNs total_ns() const { return classified_ns() + unknown_ns; }
  // The class holding at least half of the classified time, else kMixed; kUnknown when
  // nothing could be classified.
  Boundness Dominant() const;
  double Pct(TimeNs part) const;  // of total_ns()
};

struct KernelSummary {
  int64_t kernel_count = 0;
  TimeNs kernel_time_ns = 0;
  std::vector<KernelGroupStats> top;  // by total time, descending
  BoundMix mix;
  int64_t distinct_names = 0;
};

struct KernelSummaryOptions {
  size_t top_n = 10;
  ClassifyOptions classify;
  // Only kernels that start inside [start, end] (--window steps); all when absent.
  std::optional<Interval> window;
};

// True when a kernel name shows it runs on tensor cores (NVIDIA HMMA/IMMA/WGMMA names,
// cuDNN/cuBLAS tile names like s1688/h884, CUTLASS tensorop, AMD MFMA).
bool NameUsesTensorCores(std::string_view name);

// `spec` may be null (no datasheet peaks); `sm_count` 0 when unknown.
KernelSummary SummarizeKernels(const Profile& profile, const DeviceSpec* spec, int32_t sm_count,
                               const KernelSummaryOptions& options = {});

}  // namespace kraken
