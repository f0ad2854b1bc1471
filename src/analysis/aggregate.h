// One answer for a set of profiles (the ranks of one job, or several files analysed
// together): the workload type, the time-weighted bound mix and the top kernels
// across all of them.
#pragma once

#include <string>
#include <vector>

#include "analysis/characterize.h"

namespace kraken {

struct AggregateReport {
  WorkloadType type = WorkloadType::kUnknown;
  std::string confidence;
  BoundMix mix;  // summed over the profiles
  std::vector<KernelGroupStats> top_kernels;  // merged by name, by total time
  TimeNs kernel_time_ns = 0;
  int64_t kernel_count = 0;
  int64_t profiles = 0;
};

// `reports` hold each profile's full kernel groups (KernelSummaryOptions::top_n large)
// so that merging by name is exact; `top_n` limits the merged list.
AggregateReport Aggregate(const std::vector<const WorkloadReport*>& reports, size_t top_n);

}  // namespace kraken
