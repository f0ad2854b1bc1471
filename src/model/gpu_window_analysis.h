// What the agent's periodic analysis of its recent sampling says about one GPU (or MIG
// instance, or one pod's use of either): the figures of the pooling analysis over the last
// window of passes. Produced by agent/workload_window.h, rendered as kraken_* metrics by
// exporter/workload_exposition.h. Fields the samples cannot support stay empty: a figure
// that was not measured is absent, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/series.h"

namespace kraken {

struct GpuWindowAnalysis {
  SeriesEntity entity;    // as the newest pass of the window names it (its series' labels)
  int64_t passes = 0;     // passes of the window in which the entity had values
  double window_s = 0;    // time from the first to the last of those passes
  std::optional<double> gpu_util_p95;       // busy p95, ratio 0..1 (utilization.gpu, else GR engine active)
  std::optional<double> idle_ratio;         // share of passes at or below the pooling idle threshold
  std::optional<double> memory_peak_bytes;  // framebuffer used, largest value
  std::string workload_type = "unknown";    // training, inference, unknown
  // keep, share, mig-slice, reclaim, unknown; empty for a GPU in MIG mode (its instances
  // are what the pooling analysis judges).
  std::string pooling_action;
  std::string pooling_detail;
  std::string bound;  // memory, compute, neither; empty without GPM/DCGM activity ratios
  std::string bound_reason;
};

}  // namespace kraken
