// What `kraken profile` prints when the run ends: the characterization of the process
// tree from its attributed passes (docs/profile.md explains each line). Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/distribution.h"
#include "analysis/gpm_bound.h"
#include "analysis/temporal/periodicity.h"
#include "profiling/tree_attribution.h"

namespace kraken::profiling {

struct GpuRunSummary {
  int32_t gpu_index = -1;
  int64_t passes_present = 0;  // passes in which a tree process was on this GPU
  int64_t passes_shared = 0;   // passes in which another process was on it too
  // Over every pass of the run (idle passes included), when reported at all.
  std::optional<Distribution> device_util_pct;
  std::optional<Distribution> tree_sm_util_pct;
  double tree_memory_peak_bytes = 0;
  std::set<int32_t> gpu_instances;  // MIG GPU instances the tree ran in
};

struct IdleGaps {
  bool known = false;
  std::string basis;  // which utilization decided "idle"
  int64_t count = 0;
  int64_t longest_passes = 0;
  int64_t total_passes = 0;
  double longest_s = 0;  // passes x interval
  double total_s = 0;
};

struct RunSummary {
  int64_t passes = 0;
  double interval_s = 0;
  std::vector<GpuRunSummary> gpus_used;  // GPUs a tree process appeared on, by index
  double memory_peak_bytes = 0;          // the largest sum over GPUs in one pass
  IdleGaps idle;
  std::string workload_type = "unknown";
  std::string workload_type_reason;
  std::string bound = "unknown";
  std::string bound_reason;
  bool periodicity_known = false;  // false: the detector could not run (reason says why)
  temporal::PeriodVerdict periodicity = temporal::PeriodVerdict::kTooShort;
  std::string periodicity_reason;
  double period_s = 0;  // when periodic
};

// Threshold of the bound rule (GPM activity, 0..1; analysis/gpm_bound.h).
inline constexpr double kBusyActivity = kGpmBusyActivity;

RunSummary SummarizeRun(const std::vector<PassRecord>& passes, double interval_s);

}  // namespace kraken::profiling
