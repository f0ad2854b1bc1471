// What the pod annotations kraken.io/profiling, kraken.io/profile-interval and
// kraken.io/metrics (or the KRAKEN design's kraken.keti.ai/ spellings) ask of the agent
// (docs/pod-attribution.md "Pod annotations in the agent"), and the sampling plan they give each
// GPU of the node. Pure: annotations, the pod map and the devices in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "k8s/attribution/pod_resources/gpu_pod_map.h"
#include "model/device.h"

namespace kraken::agent {

inline constexpr int64_t kMaxPodIntervalNs = 3600'000'000'000;  // 1h

struct PodPolicy {
  bool disabled = false;    // kraken.io/profiling: disabled
  int64_t interval_ns = 0;  // kraken.io/profile-interval, clamped; 0 = the agent's
  // kraken.io/metrics: the groups kept for the pod's GPUs; nullopt = the agent's groups.
  std::optional<config::MetricGroups> metrics = std::nullopt;
  bool any() const { return disabled || interval_ns > 0 || metrics.has_value(); }
};

// kraken.io/metrics' value: the design's categories gpu (utilization, power, clocks,
// temperature, profiling, errors, processes), memory (framebuffer) and network (pcie,
// nvlink), and kraken's group names, comma-separated. `unknown` gets the names that are
// neither; nullopt when no name is known.
std::optional<config::MetricGroups> ParseMetricList(std::string_view text, std::vector<std::string>* unknown);

// The policy of one pod from its annotations. The interval is clamped to [agent interval,
// 1h]; `note` says why when a value was clamped or ignored (invalid), names unknown
// metric names, and that kraken.io/export-format is not acted on; "" otherwise.
PodPolicy ReadPodPolicy(const std::map<std::string, std::string>& annotations, int64_t agent_interval_ns,
                        std::string* note);

// By (namespace, pod name).
using PodPolicies = std::map<std::pair<std::string, std::string>, PodPolicy>;

// One physical GPU of the sampler.
struct DevicePlan {
  bool gpu_opted_out = false;                  // the whole GPU is held by an opted-out pod
  std::vector<int32_t> opted_out_instances;   // MIG GPU instances held by opted-out pods
  int64_t interval_ns = 0;                     // how often it is sampled
  // The metric groups its holders asked for (kraken.io/metrics); nullopt = all.
  std::optional<config::MetricGroups> metrics;
  bool any_opted_out() const { return gpu_opted_out || !opted_out_instances.empty(); }
};

// The plan of every device. The sampler reads a whole GPU at once, so a GPU is sampled at
// the shortest interval among its holders: the pod of the whole GPU, or the pods of its
// MIG instances, where an instance held by nobody, or by a pod without an interval or
// opted out, asks for the agent's interval. Its metric groups are likewise the union of
// its holders' (a holder without kraken.io/metrics, or no holder, asks for all).
std::vector<DevicePlan> PlanDevices(const std::vector<DeviceInfo>& devices, const k8s::MigUuids& mig_uuids,
                                    const k8s::GpuPodMap& map, const PodPolicies& policies,
                                    int64_t agent_interval_ns);

}  // namespace kraken::agent
