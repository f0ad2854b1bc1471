// The names of kraken's per-pod GPU share series (docs/agent.md "Per-pod use on shared
// GPUs"): what each pod's processes use of one GPU or MIG instance, measured by NVML per
// process and summed per (pod, namespace, container, GPU/MIG instance). dcgm-exporter has
// no such series (it copies device values to every pod of a shared GPU), so they carry
// kraken_ names, with dcgm-exporter's labels and units. The agent writes them and the
// Prometheus readers (promql/pod_profiles.h) read them back through this one table.
#pragma once

#include <span>
#include <string_view>

#include "model/dcgm_metric_catalog.h"

namespace kraken::prometheus {

struct PodShareMetric {
  std::string_view name;  // "kraken_pod_gpu_sm_util"
  Metric metric;          // the device metric the share stands for in a pod's profile; kOther: none
  double scale;           // exported value * scale = canonical unit
  std::string_view help;
};

std::span<const PodShareMetric> PodShareMetrics();
const PodShareMetric* FindPodShareMetric(std::string_view name);

}  // namespace kraken::prometheus
