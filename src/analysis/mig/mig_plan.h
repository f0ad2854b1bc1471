// MIG planning: choose a MIG profile for each workload from its memory peak and SM
// demand, say which workloads should not be sliced and why, and pack the slices onto the
// fewest GPUs of one model (docs/mig-planning.md).
#pragma once

#include <string>
#include <vector>

#include "analysis/explanation.h"
#include "analysis/mig/gpu_need.h"
#include "analysis/mig/mig_packing.h"
#include "analysis/mig/slice_slowdown.h"
#include "base/status.h"
#include "model/mig_catalog.h"
#include "model/workload_demand.h"

namespace kraken::mig {

// One workload to place, from a profile's demand or from a line of a plan CSV.
struct MigWorkload {
  std::string name;
  std::string source;  // "trace", "samples", "kernels", "csv"
  std::string workload_type;  // inference, training, unknown
  GpuNeed need;
  double communication_share = 0;  // of GPU busy time spent in collectives
  double nvlink_bytes_per_s = 0;
  double burst_ratio = 0;          // p95 / mean of the busy bins; 0 unknown
  SliceLoad load;                  // the slice slowdown model's inputs; unmeasured for plan CSVs
};

MigWorkload MigWorkloadFromDemand(const WorkloadDemand& demand);

// The plan CSV: a header naming at least name, memory_gib and sm_fraction (share of the
// whole GPU's SMs, 0..1); optional columns type (inference/training), sm_peak (0..1),
// comm_share (0..1), nvlink_gbps (GB/s) and burst_ratio. `source` names the file in errors.
Result<std::vector<MigWorkload>> ParseMigPlanCsv(std::string_view text);
// True when `head` starts like a plan CSV (a header line with name, memory_gib, sm_fraction).
bool LooksLikeMigPlanCsv(std::string_view head);
// One workload from "NAME:MEMORY_GIB:SM_FRACTION" (--workload).
Result<MigWorkload> ParseMigWorkloadFlag(std::string_view text);

struct MigPlanOptions {
  double memory_headroom = 0.10;  // the slice's memory must be >= peak x (1 + headroom)
  // "Do not slice" thresholds.
  double comm_heavy_share = 0.20;          // collectives' share of busy time
  double nvlink_heavy_bytes_per_s = 1e9;   // sampled NVLink traffic
  double bursty_ratio = 2.0;               // p95 / mean busy for "bursty"
  // Expected slowdown a slice may cost (--max-slowdown): a policy choice, the slowdown a user
  // accepts for the GPUs slicing frees; the same budget `kraken disagg` holds a slice to.
  double max_slowdown = 0.10;
  // A slice that packing leaves alone on its GPU frees no GPU and still costs its slowdown:
  // such a workload keeps its whole GPU (as the sharing pool keeps a pod no partner fits
  // beside), unless this is set (--slice-alone: room kept for workloads not in the plan).
  bool slice_alone = false;
};

struct MigChoice {
  int workload = -1;
  bool sliced = false;
  int profile = -1;  // index into the geometry's profiles when sliced
  int whole_gpus = 0;  // GPUs it keeps when not sliced
  std::string reason;  // why this profile, or why not sliced
  double memory_need_bytes = 0;  // peak x (1 + headroom)
  double compute_need = 0;       // share of the GPU's SMs the slice must give (p95)
  bool slowdown_checked = false;  // the workload's busy time was measured: the budget was applied
  double expected_slowdown = 0;   // of the chosen slice, when checked and sliced
  bool alone = false;  // not sliced only because its slice would be alone on its GPU (slice_alone off)
  Explanation explanation;
};

struct MigPlan {
  const MigGeometry* geometry = nullptr;
  MigPlanOptions options;
  std::vector<MigChoice> choices;  // one per workload, in input order
  PackResult packing;              // the sliced workloads (items = workload indices)
  int gpus_for_slices = 0;
  int gpus_whole = 0;
  int gpus_total = 0;
  int baseline_gpus = 0;  // one GPU per workload (more for those that need more)
  double density_gain = 0;  // baseline_gpus / gpus_total
};

// A profile's memory in bytes (-lgip's MiB), and its share of the whole GPU's SMs.
double ProfileBytes(const MigProfileSpec& profile);
double ProfileShare(const MigGeometry& geometry, const MigProfileSpec& profile);

// The smallest profile (fewest slices) whose memory and SMs cover the need, or -1.
int ChooseProfile(const MigGeometry& geometry, double memory_need_bytes, double compute_need);

MigPlan PlanMig(const std::vector<MigWorkload>& workloads, const MigGeometry& geometry,
                const MigPlanOptions& options = {});

}  // namespace kraken::mig
