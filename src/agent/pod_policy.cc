#include "agent/pod_policy.h"

#include <algorithm>
#include <string_view>

#include "base/duration.h"
#include "base/text.h"
#include "k8s/controller/annotation_writer.h"
#include "k8s/client/annotations.h"

namespace kraken::agent {

namespace {

using Group = bool config::MetricGroups::*;

// The names kraken.io/metrics takes: the KRAKEN design's categories, then kraken's groups.
const std::vector<std::pair<std::string_view, std::vector<Group>>>& MetricNames() {
  using G = config::MetricGroups;
  static const std::vector<std::pair<std::string_view, std::vector<Group>>> names = {
      {"gpu", {&G::utilization, &G::power, &G::clocks, &G::temperature, &G::profiling, &G::errors, &G::processes}},
      {"memory", {&G::memory}},
      {"network", {&G::pcie, &G::nvlink}},
      {"utilization", {&G::utilization}},
      {"power", {&G::power}},
      {"clocks", {&G::clocks}},
      {"temperature", {&G::temperature}},
      {"pcie", {&G::pcie}},
      {"nvlink", {&G::nvlink}},
      {"profiling", {&G::profiling}},
      {"errors", {&G::errors}},
      {"processes", {&G::processes}},
  };
  return names;
}

void AddNote(std::string* note, const std::string& text) {
  if (note != nullptr) note->append(note->empty() ? "" : "; ").append(text);
}

// kraken.io/profile-interval: clamped to [agent interval, 1h]; 0 when unusable.
int64_t ReadInterval(const k8s::PodSetting& setting, int64_t agent_interval_ns, std::string* note) {
  std::string_view text = Trim(setting.value);
  std::optional<int64_t> ns = ParseDurationNs(text);
  if (!ns || *ns <= 0) {
    AddNote(note, setting.key + " '" + setting.value +
                      "' is not a duration such as 100ms, 1s, 1m: ignored, the agent's interval applies");
    return 0;
  }
  int64_t clamped = std::clamp<int64_t>(*ns, agent_interval_ns, std::max(agent_interval_ns, kMaxPodIntervalNs));
  if (clamped != *ns)
    AddNote(note, setting.key + " " + std::string(text) + " is " +
                      (clamped > *ns ? "shorter than the agent's --interval" : "longer than the 1h maximum") +
                      ": sampled every " + FormatDurationNs(clamped));
  return clamped;
}

}  // namespace

std::optional<config::MetricGroups> ParseMetricList(std::string_view text, std::vector<std::string>* unknown) {
  config::MetricGroups groups;
  for (const auto& name : MetricNames())
    for (Group g : name.second) groups.*g = false;
  bool any = false;
  for (std::string_view raw : Split(text, ',')) {
    std::string name = ToLower(Trim(raw));
    if (name.empty()) continue;
    auto it = std::find_if(MetricNames().begin(), MetricNames().end(), [&](const auto& n) { return n.first == name; });
    if (it == MetricNames().end()) {
      if (unknown != nullptr) unknown->push_back(name);
      continue;
    }
    for (Group g : it->second) groups.*g = true;
    any = true;
  }
  if (!any) return std::nullopt;
  return groups;
}

PodPolicy ReadPodPolicy(const std::map<std::string, std::string>& annotations, int64_t agent_interval_ns,
                        std::string* note) {
  PodPolicy policy;
  policy.disabled = k8s::ProfilingDisabled(annotations);
  if (note != nullptr) note->clear();
  if (auto interval = k8s::FindPodSetting(annotations, k8s::kProfileIntervalKey))
    policy.interval_ns = ReadInterval(*interval, agent_interval_ns, note);
  if (auto metrics = k8s::FindPodSetting(annotations, k8s::kMetricsKey)) {
    std::vector<std::string> unknown;
    policy.metrics = ParseMetricList(metrics->value, &unknown);
    for (const std::string& name : unknown)
      AddNote(note, metrics->key + ": '" + name + "' is not a metric group (gpu, memory, network or kraken's groups)");
    if (!policy.metrics) AddNote(note, metrics->key + " names no metric group: all are kept");
  }
  if (auto format = k8s::FindPodSetting(annotations, k8s::kExportFormatKey))
    AddNote(note, format->key + " " + std::string(Trim(format->value)) +
                      ": not acted on: the agent keeps the pod's samples in the store; `kraken export` writes them");
  return policy;
}

namespace {

const PodPolicy* PolicyOf(const k8s::GpuPodMap& map, const PodPolicies& policies, const std::string& uuid) {
  if (uuid.empty()) return nullptr;
  const k8s::PodRef* owner = map.Find(uuid);
  if (owner == nullptr) return nullptr;
  auto it = policies.find({owner->namespace_name, owner->pod});
  return it == policies.end() ? nullptr : &it->second;
}

// The interval a holder asks for: its own, else the agent's (opted-out pods too: their
// GPUs keep the device-level series at the agent's interval).
int64_t IntervalOf(const PodPolicy* policy, int64_t agent_interval_ns) {
  if (policy == nullptr || policy->disabled || policy->interval_ns <= 0) return agent_interval_ns;
  return policy->interval_ns;
}

// The groups a holder asks for; nullopt (all) for no holder, none asked, or opted out
// (its GPU keeps the device-level series the agent's groups give).
std::optional<config::MetricGroups> MetricsOf(const PodPolicy* policy) {
  if (policy == nullptr || policy->disabled) return std::nullopt;
  return policy->metrics;
}

// The union of two holders' groups; nullopt (all) wins.
std::optional<config::MetricGroups> Union(const std::optional<config::MetricGroups>& a,
                                          const std::optional<config::MetricGroups>& b) {
  if (!a || !b) return std::nullopt;
  config::MetricGroups out = *a;
  for (const auto& name : MetricNames())
    for (Group g : name.second) out.*g = out.*g || (*b).*g;
  return out;
}

}  // namespace

std::vector<DevicePlan> PlanDevices(const std::vector<DeviceInfo>& devices, const k8s::MigUuids& mig_uuids,
                                    const k8s::GpuPodMap& map, const PodPolicies& policies,
                                    int64_t agent_interval_ns) {
  std::vector<DevicePlan> plans(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    const DeviceInfo& device = devices[d];
    DevicePlan& plan = plans[d];
    const PodPolicy* gpu = PolicyOf(map, policies, device.uuid);
    plan.gpu_opted_out = gpu != nullptr && gpu->disabled;
    if (device.mig_instances.empty()) {
      plan.interval_ns = IntervalOf(gpu, agent_interval_ns);
      plan.metrics = MetricsOf(gpu);
      continue;
    }
    int64_t shortest = 0;
    for (size_t i = 0; i < device.mig_instances.size(); ++i) {
      const MigInstance& mig = device.mig_instances[i];
      auto uuid = mig_uuids.find({device.uuid, mig.gpu_instance_id});
      const PodPolicy* policy = uuid == mig_uuids.end() ? nullptr : PolicyOf(map, policies, uuid->second);
      if (policy != nullptr && policy->disabled) plan.opted_out_instances.push_back(mig.gpu_instance_id);
      int64_t interval = IntervalOf(policy, agent_interval_ns);
      shortest = shortest == 0 ? interval : std::min(shortest, interval);
      plan.metrics = i == 0 ? MetricsOf(policy) : Union(plan.metrics, MetricsOf(policy));
    }
    plan.interval_ns = shortest;
  }
  return plans;
}

}  // namespace kraken::agent
