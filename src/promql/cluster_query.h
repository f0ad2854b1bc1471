// Reads a namespace's (or one pod's) DCGM history from Prometheus: builds the selector
// for both label spellings, pages the range over time windows and turns the answer into
// one Profile per pod.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "promql/pod_profiles.h"
#include "promql/prometheus_client.h"
#include "promql/query_plan.h"
#include "promql/sample_interval.h"

namespace kraken::promql {

struct ClusterQueryOptions {
  std::string namespace_name;  // required
  std::string pod;             // "" = every pod of the namespace
  int64_t range_s = 7 * 86400;
  int64_t step_s = 0;  // 0 = auto (query_plan.h)
  // Auto step also never finer than the data's sample interval, measured first
  // (sample_interval.h). `analyze` sets it; annotate's MIG hold timing is tuned to 60 s.
  bool auto_step_at_least_sample_interval = false;
  int64_t end_s = 0;   // Unix seconds of the range's end; 0 = now
  int64_t points_per_window = kDefaultPointsPerWindow;
  // QueryClusterInBatches: the most points (series x instants) one batch of pods asks
  // for. Parsed series and profiles cost ~100 bytes a point and two batches are in
  // flight: 2 M points is ~400 MB.
  int64_t points_per_batch = 2'000'000;
};

// The PromQL expression: the DCGM fields kraken's analyses read (current and 1.x names),
// restricted to the namespace (and pod) under each label spelling dcgm-exporter and
// Prometheus produce: namespace/pod (honorLabels or exporter 2.x+ with -k),
// exported_namespace/exported_pod (scraped without honorLabels) and
// pod_namespace/pod_name (exporter 1.x). Names are checked to be Kubernetes names so no
// text reaches the query unescaped.
Result<std::string> BuildDcgmQuery(const std::string& namespace_name, const std::string& pod);

struct ClusterQueryResult {
  std::string query;
  QueryPlan plan;
  int64_t end_s = 0;
  // Why plan.step_s: as asked, or auto (sample_interval.h) with the interval measured.
  std::string step_reason;
  int64_t sample_interval_s = 0;
  int64_t series_received = 0;  // summed over windows
  int64_t points_received = 0;
  PodProfiles pods;
};

// The DCGM field names kraken's analyses read (current and 1.x), as a regex alternation.
std::string DcgmMetricNameRegex();

// Runs `query` over [end - range, end] of `options` (end 0 = now), paged by
// PlanRangeQuery; appends every answered series to `out` and fills the plan and end.
Status QueryRangePaged(PrometheusClient& client, const std::string& query, const ClusterQueryOptions& options,
                       QueryPlan* plan, int64_t* end_s, std::vector<RangeSeries>* out);

Result<ClusterQueryResult> QueryCluster(PrometheusClient& client, const ClusterQueryOptions& options);

// The same pods as QueryCluster, for a whole namespace (options.pod empty) read in
// batches, so memory holds one batch of samples whatever the namespace's size: the pods
// are listed first (/api/v1/series: labels only, over the range), then asked for in
// batches of at most options.points_per_batch points (pod label =~ "a|b|..."), two at a
// time. `consume` gets each batch's profiles, in pod order, and may drop them. The result's `pods` keeps the counters,
// not the profiles; its `query` is the namespace-wide query each batch narrows.
Result<ClusterQueryResult> QueryClusterInBatches(PrometheusClient& client, const ClusterQueryOptions& options,
                                                 const std::function<void(PodProfiles&)>& consume);

}  // namespace kraken::promql
