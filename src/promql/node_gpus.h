// Which GPUs each node has, from the DCGM series in Prometheus: the catalog model, the
// number of physical GPUs and the MIG instances by profile, as the exporter on that node
// last reported them. What kraken.io/gpu-class, gpu-count and mig-layout are made from
// (k8s/controller/node_labels.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/device.h"
#include "promql/cluster_query.h"
#include "promql/prometheus_client.h"

namespace kraken::promql {

struct NodeGpus {
  // The catalog id when every GPU of the node resolves to one entry ("a100-40gb-sxm");
  // "mixed" when they resolve to different entries; "" when any GPU's model is unknown
  // or not in the catalog (kraken does not guess a model).
  std::string gpu_class;
  int gpu_count = 0;                        // physical GPUs (by UUID, else index)
  std::map<std::string, int> mig_profiles;  // GPU_I_PROFILE -> instances ("1g.5gb" -> 7)
  int64_t last_seen_ms = 0;                 // the instant this inventory was read at
};

// Groups the series by node (Hostname label; the exporter's `instance` host when there is
// none, as NormalizeDcgmLabels does) and keeps, per node, only the series that have a
// point at that node's latest instant, so a MIG layout changed during the range shows as
// it is now, not as the union of before and after. `fallback` names the model of GPUs
// whose series carry no modelName (old exporters), like --gpu-model; may be null.
std::map<std::string, NodeGpus> NodeGpusFromSeries(const std::vector<RangeSeries>& series, const DeviceSpec* fallback);

// The inventory query: one series per GPU and per MIG instance of every node, whatever
// namespace its pods are in (a node's labels describe all its GPUs):
// group by (node, GPU and instance labels) ({__name__=~"DCGM fields kraken reads"}).
std::string BuildNodeGpuQuery();

struct NodeGpuQueryResult {
  std::string query;
  int64_t series_received = 0;
  std::map<std::string, NodeGpus> nodes;
};

// Runs BuildNodeGpuQuery over the range of `options` (its namespace and pod are not used),
// paged like QueryCluster.
Result<NodeGpuQueryResult> QueryNodeGpus(PrometheusClient& client, const ClusterQueryOptions& options,
                                         const DeviceSpec* fallback);

}  // namespace kraken::promql
