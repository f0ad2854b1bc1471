// What a profiled experiment's Nsight Compute run says about its workload (the
// controller's profile Jobs, k8s/controller/profile_run.h): the Job pod's log imported
// by the ncu-csv importer and characterized by the same path as every other profile.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace kraken {

struct NcuRunFacts {
  int64_t kernels = 0;        // profiled launches
  double kernel_time_s = 0;   // their summed duration
  std::string bound;          // compute, memory, latency, communication; "" when unclassified
  double compute_bound_share = 0;  // of kernel time
  double memory_bound_share = 0;
  std::string device;         // the GPU's name as ncu reported it, or ""
};

// Imports `log_text` (program output and ==PROF== lines in front of the table allowed)
// as ncu-csv. The error is the importer's, naming `name`.
Result<NcuRunFacts> ImportNcuRunLog(const std::string& name, std::string log_text);

}  // namespace kraken
