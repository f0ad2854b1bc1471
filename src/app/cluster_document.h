// The document of GET /api/v1/cluster, whichever source fills it: the store's live
// profiles (cluster_view.h) or Prometheus (cluster_prometheus.h). Both build this shape
// and render it here, so the dashboard's cluster page reads one shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/series.h"

namespace kraken {

struct ClusterGpu {
  SeriesEntity entity;       // hostname, gpu_index, gpu_instance_id, gpu_uuid, gpu_name
  int64_t profile_id = 0;    // the newest live profile holding it (0 from Prometheus)
  int64_t profiles = 0;      // live profiles holding it (0 from Prometheus)
  TimeNs first_ns = 0;
  TimeNs last_ns = 0;
  std::optional<double> gpu_util_pct, fb_used_bytes, power_w;  // newest values
  std::optional<double> mean_gpu_util_pct;                     // over the whole span
};

struct ClusterHeatmap {
  TimeNs start_ns = 0;
  TimeNs bin_ns = 1;
  size_t bins = 0;
  std::vector<std::vector<std::optional<double>>> rows;  // parallel to ClusterDocument::gpus
};

// Mean utilization of what one namespace's (or one pod's) series show.
struct ClusterUse {
  std::string namespace_name;
  std::string pod;  // "" for a namespace row
  int64_t gpus = 0;  // GPUs and MIG instances its series name
  double mean_gpu_util_pct = 0;
  int64_t samples = 0;
};

struct ClusterDocument {
  std::string source = "store";  // or "prometheus"
  std::vector<ClusterGpu> gpus;
  ClusterHeatmap heatmap;
  int64_t threshold_pct = 30;
  // Only from Prometheus (the store's live profiles carry no pod labels): present when set.
  std::optional<std::vector<ClusterUse>> namespaces, pods;
  std::string prometheus_url;
  int64_t start_s = 0, end_s = 0, step_s = 0, windows = 0;
};

std::string RenderClusterDocument(const ClusterDocument& doc);

}  // namespace kraken
