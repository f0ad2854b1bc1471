// Derives WorkloadDemand (model/workload_demand.h) from what kraken measured: a trace's
// timeline and kernels, a sampler's metric series, or a kernel list.
#pragma once

#include <vector>

#include "analysis/characterize.h"
#include "model/profile.h"
#include "model/workload_demand.h"

namespace kraken {

struct DemandOptions {
  // Width of the busy_bins of a trace; 0 picks about 1000 bins over the span (>= 1 ms).
  double trace_bin_s = 0;
};

// One demand per workload: a trace or kernel list gives one; a sampler capture gives one
// per GPU (or MIG instance) and phase it sampled.
std::vector<WorkloadDemand> DeriveDemands(const Profile& profile, const WorkloadReport& report,
                                          const DemandOptions& options = {});

}  // namespace kraken
