// Pod names for processes on shared GPUs (docs/agent.md "Per-pod use on shared GPUs").
// A GPU or MIG instance the kubelet lists for two or more containers (time-slicing
// replicas, MPS, a shared MIG slice) has no single owner, so its device series carry no pod
// labels; its processes are told apart instead. The /proc cgroup of each process names its
// pod UID (k8s/pod_cgroup.h), the API server's pod LIST of the node turns the UID into the
// pod's namespace and name, and the kubelet's list of the device's holders gives the
// container (when the pod has one container on that device). Pure: lists in, labels out.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "k8s/attribution/node_pods.h"
#include "k8s/attribution/pod_resources/gpu_pod_map.h"
#include "model/series.h"

namespace kraken::agent {

struct PodName {
  std::string namespace_name;
  std::string pod;
};
// metadata.uid -> the pod's name.
using PodUids = std::map<std::string, PodName>;
PodUids PodUidsOf(const std::vector<k8s::NodePod>& pods);

// The containers the kubelet listed for each device that has more than one ("GPU-..." or
// "MIG-...", time-slicing replicas folded), from the same allocations as k8s::GpuPodMap.
using SharedHolders = std::map<std::string, std::vector<k8s::PodRef>, std::less<>>;
SharedHolders SharedDeviceHolders(const std::vector<k8s::PodDevices>& allocations);

// Names the process entities that the cgroup fallback gave a pod UID (labels["pod_uid"])
// but no pod name: namespace_name and pod from `uids`; container when the device's holders
// list exactly one container of that pod. A UID `uids` does not know stays a UID. Returns
// how many processes were named.
int64_t NameProcessesByPodUid(const PodUids& uids, const SharedHolders& holders, const k8s::MigUuids& mig_uuids,
                              std::vector<SeriesEntity>& entities);

}  // namespace kraken::agent
