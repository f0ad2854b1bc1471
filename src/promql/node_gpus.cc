#include "promql/node_gpus.h"

#include <algorithm>

#include "importers/common/dcgm_entity.h"
#include "model/device_catalog.h"

namespace kraken::promql {
namespace {

// The labels that say which node, GPU and MIG instance a series measures, under every
// spelling dcgm_entity reads; everything else (pod, container, values) is grouped away.
constexpr const char* kInventoryLabels[] = {"Hostname",   "hostname",         "instance",      "UUID",
                                            "uuid",       "gpu_uuid",         "gpu",           "modelName",
                                            "model_name", "DCGM_FI_DEV_NAME", "GPU_I_PROFILE", "GPU_I_ID"};

struct NodeSeries {
  SeriesEntity entity;
  int64_t last_ms = 0;
};

// The catalog entry of one GPU: by its reported name, else the fallback when the series
// carry no name at all.
const DeviceSpec* SpecOf(const DeviceInfo& device, const DeviceSpec* fallback) {
  if (device.name.empty()) return fallback;
  return MatchDeviceSpec(device.name, device.memory_bytes);
}

}  // namespace

std::map<std::string, NodeGpus> NodeGpusFromSeries(const std::vector<RangeSeries>& series, const DeviceSpec* fallback) {
  std::map<std::string, std::vector<NodeSeries>> by_node;
  for (const RangeSeries& rs : series) {
    if (rs.times_ms.empty()) continue;
    SeriesEntity entity = prometheus::EntityFromLabels(NormalizeDcgmLabels(rs.labels));
    if (entity.hostname.empty() || (entity.gpu_uuid.empty() && entity.gpu_index < 0)) continue;
    int64_t last = *std::max_element(rs.times_ms.begin(), rs.times_ms.end());
    by_node[entity.hostname].push_back({std::move(entity), last});
  }
  std::map<std::string, NodeGpus> out;
  for (const auto& [node, node_series] : by_node) {
    int64_t latest = 0;
    for (const NodeSeries& s : node_series) latest = std::max(latest, s.last_ms);
    prometheus::DeviceCollector collector;
    for (const NodeSeries& s : node_series)
      if (s.last_ms == latest) collector.Observe(s.entity);
    std::vector<DeviceInfo> devices = collector.TakeDevices();
    NodeGpus& gpus = out[node];
    gpus.last_seen_ms = latest;
    gpus.gpu_count = static_cast<int>(devices.size());
    bool unknown = false;
    std::string first_id;
    for (const DeviceInfo& device : devices) {
      for (const MigInstance& instance : device.mig_instances)
        ++gpus.mig_profiles[instance.profile.empty() ? "unknown" : instance.profile];
      const DeviceSpec* spec = SpecOf(device, fallback);
      if (spec == nullptr) {
        unknown = true;
      } else if (first_id.empty()) {
        first_id = spec->id;
      } else if (first_id != spec->id) {
        gpus.gpu_class = "mixed";
      }
    }
    if (unknown) {
      gpus.gpu_class.clear();
    } else if (gpus.gpu_class.empty()) {
      gpus.gpu_class = first_id;
    }
  }
  return out;
}

std::string BuildNodeGpuQuery() {
  std::string by;
  for (const char* label : kInventoryLabels) {
    if (!by.empty()) by += ',';
    by += label;
  }
  return "group by (" + by + ") ({__name__=~\"" + DcgmMetricNameRegex() + "\"})";
}

Result<NodeGpuQueryResult> QueryNodeGpus(PrometheusClient& client, const ClusterQueryOptions& options,
                                         const DeviceSpec* fallback) {
  NodeGpuQueryResult result;
  result.query = BuildNodeGpuQuery();
  QueryPlan plan;
  int64_t end_s = 0;
  std::vector<RangeSeries> series;
  KRAKEN_RETURN_IF_ERROR(QueryRangePaged(client, result.query, options, &plan, &end_s, &series));
  result.series_received = static_cast<int64_t>(series.size());
  result.nodes = NodeGpusFromSeries(series, fallback);
  return result;
}

}  // namespace kraken::promql
