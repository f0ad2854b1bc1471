// The kraken_* families of the agent's periodic window analysis (GpuWindowAnalysis, from
// agent/workload_window.h): per GPU / MIG instance (and pod), with the same labels as the
// entity's DCGM_* series, so dashboards join them. Appended after RenderExposition's text.
// A figure the window could not support is absent, never 0 (docs/agent.md).
#pragma once

#include <string>
#include <vector>

#include "exporter/exposition.h"
#include "model/gpu_window_analysis.h"

namespace kraken::exporter {

// Appends (does not clear `out`):
//   kraken_gpu_util_p95, kraken_gpu_idle_ratio (ratios 0..1), kraken_memory_peak_bytes,
//   kraken_workload_info{workload_type,pooling_action} 1, kraken_gpu_bound_info{bound} 1,
//   kraken_analysis_window_seconds, kraken_analysis_passes;
// each family with HELP and TYPE, and only when some entity has a value for it.
void RenderWorkloadWindow(const std::vector<GpuWindowAnalysis>& analyses, const ExpositionInput& input,
                          std::string& out);

}  // namespace kraken::exporter
