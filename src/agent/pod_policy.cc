#include "agent/pod_policy.h"

#include <algorithm>

#include "base/duration.h"
#include "base/text.h"
#include "k8s/annotation_writer.h"
#include "k8s/annotations.h"

namespace kraken::agent {

PodPolicy ReadPodPolicy(const std::map<std::string, std::string>& annotations, int64_t agent_interval_ns,
                        std::string* note) {
  PodPolicy policy;
  policy.disabled = k8s::ProfilingDisabled(annotations);
  if (note != nullptr) note->clear();
  auto it = annotations.find(k8s::kProfileIntervalKey);
  if (it == annotations.end()) return policy;
  std::string_view text = Trim(it->second);
  std::optional<int64_t> ns = ParseDurationNs(text);
  if (!ns || *ns <= 0) {
    if (note != nullptr)
      *note = std::string(k8s::kProfileIntervalKey) + " '" + it->second +
              "' is not a duration such as 100ms, 1s, 1m: ignored, the agent's interval applies";
    return policy;
  }
  int64_t clamped = std::clamp<int64_t>(*ns, agent_interval_ns, std::max(agent_interval_ns, kMaxPodIntervalNs));
  if (clamped != *ns && note != nullptr)
    *note = std::string(k8s::kProfileIntervalKey) + " " + std::string(text) + " is " +
            (clamped > *ns ? "shorter than the agent's --interval" : "longer than the 1h maximum") + ": sampled every " +
            FormatDurationNs(clamped);
  policy.interval_ns = clamped;
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
      continue;
    }
    int64_t shortest = 0;
    for (const MigInstance& mig : device.mig_instances) {
      auto uuid = mig_uuids.find({device.uuid, mig.gpu_instance_id});
      const PodPolicy* policy = uuid == mig_uuids.end() ? nullptr : PolicyOf(map, policies, uuid->second);
      if (policy != nullptr && policy->disabled) plan.opted_out_instances.push_back(mig.gpu_instance_id);
      int64_t interval = IntervalOf(policy, agent_interval_ns);
      shortest = shortest == 0 ? interval : std::min(shortest, interval);
    }
    plan.interval_ns = shortest;
  }
  return plans;
}

}  // namespace kraken::agent
