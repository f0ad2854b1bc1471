#include "k8s/attribution/pod_resources/gpu_pod_map.h"

#include "base/text.h"

namespace kraken::k8s {
namespace {

// The UUID of the device an entity sits on: its MIG instance's when it has one, else the GPU's.
std::string_view DeviceUuidOf(const MigUuids& mig_uuids, const SeriesEntity& e) {
  if (e.gpu_instance_id < 0) return e.gpu_uuid;
  auto it = mig_uuids.find({e.gpu_uuid, e.gpu_instance_id});
  return it == mig_uuids.end() ? std::string_view() : std::string_view(it->second);
}

void Assign(const PodRef& owner, SeriesEntity& e) {
  e.namespace_name = owner.namespace_name;
  e.pod = owner.pod;
  e.container = owner.container;
}

}  // namespace

std::string NormalizeDeviceId(std::string_view id) {
  id = Trim(id);
  if (!StartsWith(id, "GPU-") && !StartsWith(id, "MIG-")) return "";
  if (size_t replica = id.find("::"); replica != std::string_view::npos) id = id.substr(0, replica);
  return std::string(id);
}

GpuPodMap GpuPodMap::Build(const std::vector<PodDevices>& allocations) {
  GpuPodMap map;
  for (const PodDevices& a : allocations) {
    if (!StartsWith(a.resource_name, "nvidia.com/")) continue;
    PodRef owner{a.namespace_name, a.pod, a.container};
    for (const std::string& raw : a.device_ids) {
      std::string uuid = NormalizeDeviceId(raw);
      if (uuid.empty()) {
        ++map.ignored_ids_;
        continue;
      }
      if (map.shared_.count(uuid) != 0) continue;
      auto [it, inserted] = map.owners_.emplace(uuid, owner);
      // The same container listed twice (two replicas of one GPU) still has one owner.
      if (!inserted && !(it->second == owner)) {
        map.owners_.erase(it);
        map.shared_.insert(uuid);
      }
    }
  }
  return map;
}

const PodRef* GpuPodMap::Find(std::string_view uuid) const {
  if (uuid.empty()) return nullptr;
  auto it = owners_.find(uuid);
  return it == owners_.end() ? nullptr : &it->second;
}

AttributionCounts AttributeEntities(const GpuPodMap& map, const MigUuids& mig_uuids,
                                    const PodCgroupLookup& fallback, std::vector<SeriesEntity>& entities) {
  AttributionCounts counts;
  for (SeriesEntity& e : entities) {
    const PodRef* owner = map.Find(DeviceUuidOf(mig_uuids, e));
    if (owner != nullptr) {
      Assign(*owner, e);
      ++(e.pid >= 0 ? counts.processes_attributed : counts.devices_attributed);
      continue;
    }
    if (e.pid < 0 || !fallback) continue;
    std::optional<PodCgroup> cgroup = fallback(e.pid);
    if (!cgroup) continue;
    e.labels["pod_uid"] = cgroup->pod_uid;
    if (!cgroup->container_id.empty()) e.labels["container_id"] = cgroup->container_id;
    ++counts.processes_by_cgroup;
  }
  return counts;
}

}  // namespace kraken::k8s
