// Readable and JSON output of `kraken analyze --prometheus`: how the history was read,
// each pod's GPU demand and recommendation, the pooled groups and the GPUs saved.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/pooling/pod_pooling.h"

namespace kraken {

struct ClusterPoolingView {
  std::string prometheus_url;
  std::string query;
  std::string namespace_name;
  std::string pod;  // "" = all
  int64_t start_s = 0;
  int64_t end_s = 0;
  int64_t step_s = 0;
  std::string step_reason;     // as asked, or auto and why (promql/sample_interval.h)
  int64_t sample_interval_s = 0;  // 0 = not measured
  int64_t windows = 0;
  int64_t series_received = 0;
  int64_t points_received = 0;
  std::map<std::string, int64_t> counters;  // skipped values, series without a pod, ...
  std::vector<pooling::PodGpuUse> uses;
  pooling::PoolingReport report;
  bool explain = false;
};

std::string RenderClusterPoolingText(const ClusterPoolingView& view);
std::string RenderClusterPoolingJson(const ClusterPoolingView& view);

}  // namespace kraken
