// `kraken analyze --prometheus URL --namespace NS`, `kraken annotate` and the C API's
// kraken_cluster_analyze: the namespace's DCGM history read through the Prometheus HTTP
// API, each pod's GPU use, and the pooling candidates among them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/pooling/pod_pooling.h"
#include "app/slowdown_budget.h"
#include "base/status.h"
#include "model/device.h"
#include "promql/cluster_query.h"
#include "promql/prometheus_client.h"

namespace kraken {

struct ClusterAnalyzeSettings {
  std::string prometheus;  // http://host:port[/prefix]
  std::string namespace_name;
  std::string pod;         // "" = every pod of the namespace
  std::string range = "7d";
  std::string step = "auto";
  int64_t end_s = 0;       // 0 = now
  std::string gpu_model;   // catalog id for GPUs whose series carry no modelName
  int timeout_s = 60;
  double max_slowdown_pct = kDefaultMaxSlowdownPct;  // expected slowdown (%) a recommended MIG slice may cost
  bool explain = false;
};

// The pods' GPU uses of one query and the pooling analysis over them.
struct ClusterPooling {
  promql::ClusterQueryResult query;
  std::vector<pooling::PodGpuUse> uses;
  pooling::PoolingReport report;
  // With keep_answer_times: per pod, the times (Unix s, ascending, distinct) at which any of
  // its series answered. The pods' profiles go with their batch (query.pods keeps only the
  // counters), so what a later step needs of them is kept here.
  std::map<promql::PodKey, std::vector<int64_t>> answer_times_s;
};

// Queries the namespace (and pod) of `options` and analyses every pod's GPU use under
// `pooling_options` (its --max-slowdown); GPUs without a model name are taken for
// `fallback` (may be null).
Result<ClusterPooling> AnalyzeClusterPooling(promql::PrometheusClient& client,
                                             const promql::ClusterQueryOptions& options, const DeviceSpec* fallback,
                                             const pooling::PoolingOptions& pooling_options,
                                             bool keep_answer_times = false);

// The whole request: settings checked (messages name the CLI flags), Prometheus queried,
// the document rendered.
Result<std::string> RenderClusterAnalysis(const ClusterAnalyzeSettings& settings, bool json);

}  // namespace kraken
