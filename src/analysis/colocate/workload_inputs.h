// From a demand vector (model/workload_demand.h) to the figures the co-location model
// uses, each with its basis; what a source did not measure is replaced by a documented
// assumption and marked so.
#pragma once

#include "analysis/colocate/colocation_parameters.h"
#include "model/colocation.h"
#include "model/workload_demand.h"

namespace kraken {

// What the user says about a workload's setting rather than its profile.
struct WorkloadSetup {
  double request_rate_per_s = 0;  // offered request rate (inference); 0 = not given
  double max_slowdown = 0;        // QoS: highest acceptable slowdown (p99 increase for inference)
};

ColocationWorkload BuildColocationWorkload(const WorkloadDemand& demand, const WorkloadSetup& setup,
                                           const ColocationParameters& params);

// Representative SM fill of bin `i` of WorkloadDemand::sm_fill_time_share.
double FillOfBin(size_t i);

// compute / memory / mixed from the kernel bound mix (the class-table input): the class
// holding at least half of the classified kernel time, else mixed.
std::string WorkClassOf(const WorkloadDemand& demand);

}  // namespace kraken
