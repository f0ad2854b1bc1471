#include "analysis/mig/slice_slowdown.h"

#include <algorithm>
#include <string>

#include "analysis/mig/mig_plan.h"

namespace kraken::mig {

SliceLoad MeasureSliceLoad(const WorkloadDemand& d, const GpuNeed& need, const temporal::TemporalStability& t) {
  SliceLoad load;
  load.busy_measured = d.gpu_busy.measured || t.measured;
  load.busy = d.gpu_busy.measured ? d.gpu_busy.mean : t.mean;
  load.compute_mean = need.compute_mean;
  load.fill_hi = d.sm_fill > 0 ? d.sm_fill : 1;
  load.dram_measured = d.dram_active.measured;
  load.dram_active = d.dram_active.measured ? d.dram_active.mean : 0;
  return load;
}

SliceSlowdown PredictSliceSlowdown(const MigGeometry& g, const MigProfileSpec& p, const SliceLoad& load,
                                   Explanation* e) {
  SliceSlowdown x;
  double b = load.busy;
  double s = ProfileShare(g, p);
  double m = static_cast<double>(p.memory_slices) / g.memory_slice_count;
  double compute = std::max(0.0, load.compute_mean / s - b);
  double bandwidth = load.dram_measured ? std::max(0.0, load.dram_active / m - b) : 0;
  x.expected = x.lo = std::max(compute, bandwidth);
  x.hi = std::max(x.expected, b * std::max(0.0, load.fill_hi / s - 1));
  if (e == nullptr) return x;
  e->Term("slice SM share", s, "ratio", std::to_string(p.sm_count) + " / " + std::to_string(g.full_gpu_sm_count));
  e->Term("slice memory-bandwidth share", m, "ratio",
          std::to_string(p.memory_slices) + " / " + std::to_string(g.memory_slice_count) + " memory slices");
  e->Term("slowdown, expected", x.expected, "ratio",
          "max(0, mean compute need / SM share - busy), max with the same for DRAM activity / bandwidth share");
  e->Term("slowdown, high", x.hi, "ratio", "busy x max(0, SM fill while busy / SM share - 1)");
  e->Assume("closed loop: the GPU's busy periods stretch by (SMs wanted / SMs given); gaps stay as they are");
  return x;
}

}  // namespace kraken::mig
