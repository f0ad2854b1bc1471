// GET /api/v1/cluster when `kraken serve --prometheus URL` is given: the fleet, its
// GPU x time heatmap, per-namespace and per-pod use and the pooling candidates read from
// the DCGM series in Prometheus (or Thanos, Mimir: the same HTTP API) through the query
// layer of `kraken analyze --prometheus` (promql/: every label spelling of dcgm-exporter
// and the agent), in the document shape the store path renders (cluster_document.h).
// Prometheus aggregates per heatmap bin (avg_over_time, count_over_time) and per field
// (last_over_time), so the answer grows with GPUs x bins, not with the samples: a week of
// 8,000 GPUs is 60 points per GPU, not 10,080 (docs/prometheus-scale.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace kraken {

struct PrometheusClusterSettings {
  std::string prometheus_url;
  int64_t range_s = 86400;  // [end - range, end]
  int64_t end_s = 0;        // Unix seconds; 0 = now
  int64_t threshold_pct = 30;
  size_t bins = 60;  // heatmap columns over the range
  int timeout_s = 60;
};

// The busy figure per GPU is DCGM's graphics-engine activity x 100 where the exporter
// sends it, else its utilization in percent: the same preference as `kraken analyze
// --prometheus` (gpu_busy) and `kraken cost chargeback`, so the figures agree.
Result<std::string> RenderPrometheusClusterView(const PrometheusClusterSettings& settings);

}  // namespace kraken
