// Inputs of `kraken colocate`: files -> demand vectors -> co-location workloads, and the
// NAME=VALUE flags that attach a request rate or a QoS limit to one of them.
#pragma once

#include <string>
#include <vector>

#include "analysis/colocate/workload_inputs.h"
#include "base/status.h"
#include "model/colocation.h"
#include "model/device.h"

namespace kraken::cli {

struct LoadedWorkloads {
  std::vector<WorkloadDemand> demands;  // one per workload, names shortened and unique
  std::vector<std::string> notes;       // defaults chosen (device of Orion lists), inputs skipped
};

// Imports every file and derives its demands. `device` (may be null) is the GPU the
// kernels' SM fill is measured against; Orion lists without it get the V100 of their
// SOURCES.md (catalog v100-pcie) and a note.
Result<LoadedWorkloads> LoadDemands(const std::vector<std::string>& files, const DeviceSpec* device);

// Parses "NAME=VALUE" flags into per-workload values; NAME is a workload's name, its file
// name without extensions, or its 1-based position.
Status ApplyNamedValues(const std::vector<std::string>& flags, const std::string& flag_name,
                        const std::vector<WorkloadDemand>& demands, std::vector<double>* values);

// "80GiB", "16GB", "512MiB", "1e9" -> bytes.
Result<double> ParseByteSize(const std::string& text);

// "60,40" -> {0.6, 0.4} (percent of SMs per workload).
Result<std::vector<double>> ParseSmSplit(const std::string& text, size_t workloads);

}  // namespace kraken::cli
