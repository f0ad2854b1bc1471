#include "agent/shared_gpu_pods.h"

#include <algorithm>

namespace kraken::agent {
namespace {

// The UUID the kubelet names the entity's device by: its MIG instance's, else its GPU's.
std::string_view HolderUuidOf(const k8s::MigUuids& mig_uuids, const SeriesEntity& e) {
  if (e.gpu_instance_id < 0) return e.gpu_uuid;
  auto it = mig_uuids.find({e.gpu_uuid, e.gpu_instance_id});
  return it == mig_uuids.end() ? std::string_view() : std::string_view(it->second);
}

}  // namespace

PodUids PodUidsOf(const std::vector<k8s::NodePod>& pods) {
  PodUids uids;
  for (const k8s::NodePod& pod : pods)
    if (!pod.uid.empty()) uids[pod.uid] = {pod.namespace_name, pod.name};
  return uids;
}

SharedHolders SharedDeviceHolders(const std::vector<k8s::PodDevices>& allocations) {
  SharedHolders all;
  for (const k8s::PodDevices& a : allocations) {
    if (a.resource_name.rfind("nvidia.com/", 0) != 0) continue;
    for (const std::string& id : a.device_ids) {
      std::string uuid = k8s::NormalizeDeviceId(id);
      if (uuid.empty()) continue;
      std::vector<k8s::PodRef>& holders = all[uuid];
      k8s::PodRef ref{a.namespace_name, a.pod, a.container};
      if (std::find(holders.begin(), holders.end(), ref) == holders.end()) holders.push_back(std::move(ref));
    }
  }
  std::erase_if(all, [](const auto& entry) { return entry.second.size() < 2; });  // one owner: GpuPodMap's
  return all;
}

int64_t NameProcessesByPodUid(const PodUids& uids, const SharedHolders& holders, const k8s::MigUuids& mig_uuids,
                              std::vector<SeriesEntity>& entities) {
  int64_t named = 0;
  for (SeriesEntity& e : entities) {
    if (e.pid < 0 || !e.pod.empty()) continue;
    auto uid = e.labels.find("pod_uid");
    if (uid == e.labels.end()) continue;
    auto name = uids.find(uid->second);
    if (name == uids.end()) continue;
    e.namespace_name = name->second.namespace_name;
    e.pod = name->second.pod;
    ++named;
    auto device = holders.find(HolderUuidOf(mig_uuids, e));
    if (device == holders.end()) continue;
    const k8s::PodRef* only = nullptr;
    int count = 0;
    for (const k8s::PodRef& ref : device->second)
      if (ref.namespace_name == e.namespace_name && ref.pod == e.pod) {
        only = &ref;
        ++count;
      }
    if (count == 1) e.container = only->container;
  }
  return named;
}

}  // namespace kraken::agent
