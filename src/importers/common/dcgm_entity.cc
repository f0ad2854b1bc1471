#include "importers/common/dcgm_entity.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include "base/text.h"

namespace kraken::prometheus {
namespace {

enum class EntityField {
  kGpuIndex,
  kUuid,
  kModelName,
  kHostname,
  kPciBusId,
  kGpuInstanceId,
  kMigProfile,
  kPod,
  kNamespace,
  kContainer,
};

struct LabelSpelling {
  std::string_view label;
  EntityField field;
};

// Current names first, then the old ones (-o/--use-old-namespace, 1.x, link template).
constexpr LabelSpelling kEntityLabels[] = {
    {"gpu", EntityField::kGpuIndex},
    {"UUID", EntityField::kUuid},
    {"uuid", EntityField::kUuid},
    {"gpu_uuid", EntityField::kUuid},
    {"modelName", EntityField::kModelName},
    {"model_name", EntityField::kModelName},
    {"Hostname", EntityField::kHostname},
    {"hostname", EntityField::kHostname},
    {"pci_bus_id", EntityField::kPciBusId},
    {"GPU_I_ID", EntityField::kGpuInstanceId},
    {"GPU_I_PROFILE", EntityField::kMigProfile},
    {"pod", EntityField::kPod},
    {"pod_name", EntityField::kPod},
    {"namespace", EntityField::kNamespace},
    {"pod_namespace", EntityField::kNamespace},
    {"container", EntityField::kContainer},
    {"container_name", EntityField::kContainer},
};

// Label-type rows of the counters CSV that say something about the device.
constexpr std::string_view kDriverVersionLabel = "DCGM_FI_DRIVER_VERSION";
constexpr std::string_view kDeviceNameLabel = "DCGM_FI_DEV_NAME";

std::optional<int32_t> ParseIndex(std::string_view text) {
  std::optional<int64_t> v = ParseInt64(text);
  if (!v || *v < 0 || *v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(*v);
}

// Sets an entity field from one label; false when the label must be kept verbatim
// instead (the field is already set by another spelling, or the number is unreadable).
bool SetField(EntityField field, const std::string& value, SeriesEntity* entity) {
  auto set_text = [&](std::string* target) {
    if (!target->empty()) return false;
    *target = value;
    return true;
  };
  auto set_index = [&](int32_t* target) {
    std::optional<int32_t> index = ParseIndex(value);
    if (*target >= 0 || !index) return false;
    *target = *index;
    return true;
  };
  switch (field) {
    case EntityField::kGpuIndex: return set_index(&entity->gpu_index);
    case EntityField::kUuid: return set_text(&entity->gpu_uuid);
    case EntityField::kModelName: return set_text(&entity->gpu_name);
    case EntityField::kHostname: return set_text(&entity->hostname);
    case EntityField::kPciBusId: return set_text(&entity->pci_bus_id);
    case EntityField::kGpuInstanceId: return set_index(&entity->gpu_instance_id);
    case EntityField::kMigProfile: return set_text(&entity->mig_profile);
    case EntityField::kPod: return set_text(&entity->pod);
    case EntityField::kNamespace: return set_text(&entity->namespace_name);
    case EntityField::kContainer: return set_text(&entity->container);
  }
  return false;
}

std::string LabelOr(const SeriesEntity& entity, std::string_view label) {
  auto it = entity.labels.find(std::string(label));
  return it == entity.labels.end() ? std::string() : it->second;
}

}  // namespace

SeriesEntity EntityFromLabels(const std::vector<Label>& labels) {
  SeriesEntity entity;
  for (const Label& label : labels) {
    bool used = false;
    for (const LabelSpelling& spelling : kEntityLabels) {
      if (spelling.label == label.name) {
        used = SetField(spelling.field, label.value, &entity);
        break;
      }
    }
    if (!used) entity.labels.emplace(label.name, label.value);
  }
  return entity;
}

int DeviceCollector::Observe(const SeriesEntity& entity) {
  std::string key;
  if (!entity.gpu_uuid.empty()) {
    key = "uuid:" + entity.gpu_uuid;
  } else if (entity.gpu_index >= 0) {
    // Without a UUID the index is unique only per host.
    key = "host:" + entity.hostname + "#" + std::to_string(entity.gpu_index);
  } else {
    return -1;
  }
  auto [it, inserted] = index_by_key_.emplace(key, static_cast<int>(devices_.size()));
  if (inserted) devices_.emplace_back();
  DeviceInfo& device = devices_[it->second];
  device.vendor = Vendor::kNvidia;  // DCGM reads NVIDIA GPUs only
  if (device.index < 0) device.index = entity.gpu_index;
  if (device.uuid.empty()) device.uuid = entity.gpu_uuid;
  if (device.pci_bus_id.empty()) device.pci_bus_id = entity.pci_bus_id;
  if (device.name.empty()) device.name = entity.gpu_name.empty() ? LabelOr(entity, kDeviceNameLabel) : entity.gpu_name;
  if (device.driver_version.empty()) device.driver_version = LabelOr(entity, kDriverVersionLabel);
  if (entity.gpu_instance_id >= 0) {
    device.mig_enabled = true;
    bool known = false;
    for (MigInstance& instance : device.mig_instances) {
      if (instance.gpu_instance_id != entity.gpu_instance_id) continue;
      known = true;
      if (instance.profile.empty()) instance.profile = entity.mig_profile;
    }
    if (!known) {
      MigInstance& instance = device.mig_instances.emplace_back();
      instance.gpu_instance_id = entity.gpu_instance_id;
      instance.profile = entity.mig_profile;
    }
  }
  return it->second;
}

void DeviceCollector::SetMemoryBytes(int device, double bytes) {
  if (device < 0 || device >= static_cast<int>(devices_.size())) return;
  if (!std::isfinite(bytes) || bytes <= 0 || bytes > static_cast<double>(std::numeric_limits<int64_t>::max() / 2)) {
    return;
  }
  devices_[device].memory_bytes = static_cast<int64_t>(std::llround(bytes));
}

}  // namespace kraken::prometheus
