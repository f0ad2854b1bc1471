// From a pod's sampled profile to its GPU uses: characterize, derive demand, and name
// the GPU (and MIG slice) each demand describes.
#include <algorithm>

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "analysis/pooling/pod_pooling.h"
#include "model/device_catalog.h"
#include "model/mig_catalog.h"

namespace kraken::pooling {
namespace {

const DeviceSpec* SpecOf(const DeviceInfo& device, const DeviceSpec* fallback) {
  if (!device.name.empty()) {
    if (const DeviceSpec* spec = MatchDeviceSpec(device.name, device.memory_bytes)) return spec;
  }
  return fallback;
}

// dcgm-exporter names a MIG instance's profile ("1g.5gb") but not its size; the
// catalog knows it, and the demand needs it to turn instance ratios into GPU shares.
void FillMigInstanceSizes(const DeviceSpec* spec, DeviceInfo* device) {
  if (spec == nullptr) return;
  const MigGeometry* geometry = FindMigGeometry(spec->id);
  if (geometry == nullptr) return;
  for (MigInstance& instance : device->mig_instances) {
    const MigProfileSpec* profile = FindMigProfile(*geometry, instance.profile);
    if (profile == nullptr) continue;
    if (instance.sm_count <= 0) instance.sm_count = profile->sm_count;
    if (instance.memory_bytes <= 0) instance.memory_bytes = profile->memory_mib * 1024 * 1024;
  }
}

}  // namespace

std::vector<PodGpuUse> PodGpuUses(Profile& profile, const std::string& namespace_name, const std::string& pod,
                                  const DeviceSpec* fallback_device) {
  const DeviceSpec* spec = nullptr;
  for (DeviceInfo& device : profile.devices) {
    const DeviceSpec* device_spec = SpecOf(device, fallback_device);
    if (spec == nullptr) spec = device_spec;
    FillMigInstanceSizes(device_spec, &device);
  }
  CharacterizeOptions options;
  options.device = spec;
  WorkloadReport report = CharacterizeWorkload(profile, options);
  std::vector<WorkloadDemand> demands = DeriveDemands(profile, report);
  bool in_slices =
      std::any_of(demands.begin(), demands.end(), [](const WorkloadDemand& d) { return d.gpu_instance_id >= 0; });
  std::vector<PodGpuUse> uses;
  for (WorkloadDemand& demand : demands) {
    if (in_slices != (demand.gpu_instance_id >= 0)) continue;
    PodGpuUse use;
    use.namespace_name = namespace_name;
    use.pod = pod;
    use.node = profile.metadata.hostname;
    use.device = spec;
    for (const DeviceInfo& device : profile.devices) {
      if (device.index != demand.gpu_index) continue;
      use.gpu_uuid = device.uuid;
      use.device = SpecOf(device, fallback_device);
      for (const MigInstance& instance : device.mig_instances)
        if (instance.gpu_instance_id == demand.gpu_instance_id) use.mig_profile = instance.profile;
    }
    if (use.device != nullptr) {
      if (demand.device_sm_count <= 0) demand.device_sm_count = use.device->sm_count;
      if (demand.device_memory_bytes <= 0) demand.device_memory_bytes = static_cast<double>(use.device->memory_bytes);
      if (demand.device_id.empty()) demand.device_id = use.device->id;
    }
    demand.name = namespace_name + "/" + pod;
    use.demand = std::move(demand);
    uses.push_back(std::move(use));
  }
  return uses;
}

}  // namespace kraken::pooling
