// The slowdown a workload is expected to suffer on a MIG slice, and what that model reads
// about the workload. One model for both analyses that size a slice: `kraken mig-plan`
// (a slice must stay within --max-slowdown) and `kraken disagg` (rule 5's budget and the
// MIG slice's impact range); docs/disaggregation.md and docs/mig-planning.md.
#pragma once

#include "analysis/explanation.h"
#include "analysis/mig/gpu_need.h"
#include "analysis/temporal/stability.h"
#include "model/mig_catalog.h"
#include "model/workload_demand.h"

namespace kraken::mig {

// The model's inputs, as shares of the whole GPU the workload was measured on.
struct SliceLoad {
  bool busy_measured = false;  // without busy time the model has nothing to stretch
  double busy = 0;             // fraction of wall time the GPU is busy
  double compute_mean = 0;     // mean share of the GPU's SMs kept busy
  double fill_hi = 1;          // share of the SMs a kernel fills while busy, worst case
  bool dram_measured = false;
  double dram_active = 0;      // mean DRAM activity (fraction of peak bandwidth)
};

// Busy from the demand's gpu_busy, else the mean of its busy bins (`busy_bins`, the
// temporal analysis of the same demand); SM fill from sm_fill, else 1 (kernels fill the GPU).
SliceLoad MeasureSliceLoad(const WorkloadDemand& demand, const GpuNeed& need,
                           const temporal::TemporalStability& busy_bins);

struct SliceSlowdown {  // added time / time today
  double expected = 0;
  double lo = 0;
  double hi = 0;
};

// Closed loop: the GPU's busy periods stretch by SMs wanted / SMs given (and DRAM activity /
// memory-bandwidth share given); the gaps between them stay as they are. With `explain`,
// adds the terms and the assumption.
SliceSlowdown PredictSliceSlowdown(const MigGeometry& geometry, const MigProfileSpec& profile, const SliceLoad& load,
                                   Explanation* explain = nullptr);

}  // namespace kraken::mig
