// Turns DCGM series read from Prometheus into one kraken Profile per Kubernetes pod, so
// the per-workload analyses (series summary, demand, MIG plan) run on each pod as they
// run on an imported file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "importers/common/exposition_parser.h"
#include "model/profile.h"
#include "promql/prometheus_client.h"

namespace kraken::promql {

// A pod's identity in the cluster.
struct PodKey {
  std::string namespace_name;
  std::string pod;
  auto operator<=>(const PodKey&) const = default;
};

// The labels of a scraped dcgm-exporter series, as dcgm_entity reads them. When
// Prometheus scrapes dcgm-exporter through a ServiceMonitor without honorLabels, the
// exporter's own pod/namespace/container labels clash with the target's and arrive as
// exported_pod/exported_namespace/exported_container, while pod/namespace name the
// exporter's pod. Then the exported_* values are the workload's and win; the scrape
// target's values are kept as scrape_pod/scrape_namespace/scrape_container.
// Without a Hostname label (some exporter versions), `instance` (host:port of the
// exporter) stands in for the node. __name__ is dropped.
std::vector<prometheus::Label> NormalizeDcgmLabels(const std::vector<std::pair<std::string, std::string>>& labels);

struct PodProfiles {
  std::map<PodKey, Profile> by_pod;
  int64_t series_without_pod = 0;     // GPU series no pod label names (idle or unallocated GPUs)
  int64_t blank_values = 0;           // DCGM blank sentinels skipped
  int64_t non_finite_values = 0;      // NaN/Inf skipped
  int64_t unknown_metric_series = 0;  // dcgm names kraken has no canonical metric for
};

// Series with the same labels (one per query window) are merged, their points in time
// order; points repeated at a window edge are kept once.
PodProfiles BuildPodProfiles(const std::vector<RangeSeries>& series, const std::string& source_url);

}  // namespace kraken::promql
