// The agent's periodic analysis of its recent sampling: the last window of passes of the
// ring becomes, per GPU / MIG instance (and per pod when the GPU's series carry pod
// labels), the same Profile shape an imported sampler capture has, and goes through the
// analyses `kraken analyze --prometheus` runs (PodGpuUses -> DeriveDemands, then
// FindPoolingCandidates over the node's GPUs) plus the GPM bound rule of `kraken profile`.
// Pure: passes and devices in, one GpuWindowAnalysis per entity out (docs/agent.md).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "model/device.h"
#include "model/gpu_window_analysis.h"
#include "model/profile.h"
#include "model/sample_batch.h"

namespace kraken::agent {

// `passes` oldest first (null entries are skipped). Entities in the order they first
// appear; process entities are left out (the exporter has no per-process series). Each
// entity's Profile has the device it belongs to and one Series per canonical metric.
std::vector<GpuWindowAnalysis> AnalyzeWorkloadWindow(std::span<const SampleBatch* const> passes,
                                                     const std::vector<DeviceInfo>& devices,
                                                     const std::string& hostname);

}  // namespace kraken::agent
