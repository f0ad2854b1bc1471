// GET /api/v1/live when `kraken serve --prometheus URL` has no --agent: the newest value
// of every GPU's (and MIG instance's) DCGM series in Prometheus, read through the query
// layer of the cluster page and `kraken analyze --prometheus` (promql/: the same range
// query, every label spelling of dcgm-exporter and the agent), so the live view of the
// central API shows the whole cluster, not an empty store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace kraken {

struct PrometheusLiveSettings {
  std::string prometheus_url;
  // A range query over [end - lookback, end]; each series' newest point is its latest
  // value. 5 minutes is Prometheus's own staleness window, so a GPU that stopped
  // reporting drops out as it does from an instant query.
  int64_t lookback_s = 300;
  int64_t step_s = 30;
  int64_t end_s = 0;  // Unix seconds; 0 = now
  int timeout_s = 10;
  // A stream sends one event a second: past this many samples the event is cut (the
  // answer says "truncated") rather than grow with the cluster without bound.
  size_t max_samples = 100'000;
};

// The JSON of one "samples" event:
// {"profile_id": null, "source": "prometheus", "prometheus", "time_ns", "truncated",
//  "samples": [{"hostname", "gpu_uuid", "gpu_index", "gpu_instance_id", "namespace", "pod",
//               "metric", "value", "time_ns"}]}
// with canonical metric names and units (as the store's live view). Fails when
// Prometheus does not answer.
Result<std::string> RenderPrometheusLiveEvent(const PrometheusLiveSettings& settings);

// The same shape with "error" and no samples, for a stream whose source failed.
std::string PrometheusLiveErrorEvent(const std::string& prometheus_url, const std::string& message);

}  // namespace kraken
