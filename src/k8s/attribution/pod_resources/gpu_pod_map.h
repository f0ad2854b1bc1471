// Which container a GPU or MIG device belongs to, from what the kubelet's pod-resources
// API listed (pod_resources_client.h), and the attribution of a sampling pass's entities
// to pods: dcgm-exporter's pod/namespace/container labels. Pure: no I/O; the /proc cgroup
// fallback comes in as a function.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "k8s/attribution/pod_cgroup.h"
#include "k8s/attribution/pod_resources/pod_resources_client.h"
#include "model/series.h"

namespace kraken::k8s {

struct PodRef {
  std::string namespace_name;
  std::string pod;
  std::string container;
  bool operator==(const PodRef&) const = default;
};

// The device id as NVML names the device: the NVIDIA device plugin lists whole GPUs as
// "GPU-<uuid>" and MIG devices as "MIG-<uuid>" (its default uuid id strategy); with
// time-slicing it lists replicas as "<uuid>::<n>", which this strips. "" for an id that
// names no NVIDIA device by UUID (the plugin's "index" strategy: "0", "0:1"; other vendors).
std::string NormalizeDeviceId(std::string_view device_id);

class GpuPodMap {
 public:
  GpuPodMap() = default;
  // Devices of resources outside "nvidia.com/" are ignored. A device listed for two or
  // more containers (time-slicing, MPS, shared GPUs) has no single owner: it is kept
  // aside in shared_devices() and Find() does not answer for it.
  static GpuPodMap Build(const std::vector<PodDevices>& allocations);

  // The one container that was allocated `uuid` ("GPU-..." or "MIG-..."), else nullptr.
  const PodRef* Find(std::string_view uuid) const;

  size_t size() const { return owners_.size(); }
  const std::set<std::string>& shared_devices() const { return shared_; }
  int64_t ignored_device_ids() const { return ignored_ids_; }  // ids not naming a UUID

 private:
  std::map<std::string, PodRef, std::less<>> owners_;
  std::set<std::string> shared_;
  int64_t ignored_ids_ = 0;
};

// MIG device UUIDs ("MIG-...", what the device plugin lists for a MIG slice) by (GPU UUID,
// GPU instance id). NVML names MIG devices per compute instance; the device plugin hands
// out GPU instances with one compute instance each, so the GPU instance identifies it.
using MigUuids = std::map<std::pair<std::string, int32_t>, std::string>;

// The pod of a process from /proc/<pid>/cgroup (ReadPodCgroup), nullopt for a host
// process or a pid that cannot be read.
using PodCgroupLookup = std::function<std::optional<PodCgroup>(int64_t pid)>;

struct AttributionCounts {
  int64_t devices_attributed = 0;    // GPU and MIG entities labelled from the map
  int64_t processes_attributed = 0;  // process entities labelled from the map
  int64_t processes_by_cgroup = 0;   // process entities given only a pod UID by the fallback
};

// Fills pod, namespace_name and container of every entity whose device (the GPU, or the
// MIG instance for entities with gpu_instance_id >= 0, whose UUID comes from `mig_uuids`)
// has exactly one owner in `map`; processes on such a device inherit that owner.
// A process on a device without one owner is given to `fallback` (may be empty): when its
// cgroup names a pod, labels["pod_uid"] (and labels["container_id"] when the cgroup names
// the container) are set. The cgroup knows no pod names, so the fallback never fills pod,
// namespace_name or container: a UID is not turned into a name kraken would have to guess.
// Fields are set only where attribution applies; the caller starts from fresh entities.
AttributionCounts AttributeEntities(const GpuPodMap& map, const MigUuids& mig_uuids,
                                    const PodCgroupLookup& fallback, std::vector<SeriesEntity>& entities);

}  // namespace kraken::k8s
