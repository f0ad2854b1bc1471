#include "profiling/trial_candidates.h"

#include <set>

#include "base/text.h"
#include "model/device_catalog.h"
#include "model/mig_catalog.h"

namespace kraken::profiling {
namespace {

std::string CatalogId(const DeviceInfo& device) {
  const DeviceSpec* spec = MatchDeviceSpec(device.name, device.memory_bytes);
  return spec != nullptr ? spec->id : "";
}

TrialCandidate WholeGpu(const DeviceInfo& device) {
  TrialCandidate c;
  c.uuid = device.uuid;
  c.gpu_index = device.index;
  c.device_name = device.name;
  c.catalog_id = CatalogId(device);
  c.gpu_fraction = 1.0;
  c.fraction_basis = "whole GPU";
  return c;
}

TrialCandidate MigCandidate(const GpuForTrial& gpu, size_t i) {
  const MigInstance& mig = gpu.device.mig_instances[i];
  TrialCandidate c;
  c.uuid = i < gpu.mig_uuids.size() ? gpu.mig_uuids[i] : "";
  c.gpu_index = gpu.device.index;
  c.device_name = gpu.device.name;
  c.catalog_id = CatalogId(gpu.device);
  c.mig_profile = mig.profile;
  c.gpu_instance_id = mig.gpu_instance_id;
  c.compute_instance_id = mig.compute_instance_id;
  c.gpu_fraction = MigGpuFraction(c.catalog_id, c.mig_profile, &c.fraction_basis);
  return c;
}

std::string Describe(const TrialCandidate& c) {
  if (c.mig_profile.empty()) return "GPU " + std::to_string(c.gpu_index);
  return "MIG " + c.mig_profile + " (GPU " + std::to_string(c.gpu_index) + ", GPU instance " +
         std::to_string(c.gpu_instance_id) + ")";
}

Status CheckUuid(const TrialCandidate& c) {
  if (!c.uuid.empty()) return Status::Ok();
  return InvalidInput(Describe(c) + " has no UUID in NVML's answer: CUDA_VISIBLE_DEVICES cannot name it");
}

Status InMigMode(const GpuForTrial& gpu, std::string_view item) {
  std::string uuids;
  for (const std::string& uuid : gpu.mig_uuids) uuids += (uuids.empty() ? "" : ", ") + uuid;
  return InvalidInput("--candidates: GPU " + std::string(item) + " is in MIG mode; name its MIG instances instead: " +
                      (uuids.empty() ? std::string("it has none") : uuids));
}

// The candidate a list item names, or an error naming the item.
Result<TrialCandidate> FindCandidate(const std::vector<GpuForTrial>& gpus, std::string_view item) {
  if (std::optional<int64_t> index = ParseInt64(item)) {
    for (const GpuForTrial& gpu : gpus) {
      if (gpu.device.index != *index) continue;
      if (gpu.device.mig_enabled) return InMigMode(gpu, item);
      return WholeGpu(gpu.device);
    }
    return NotFound("--candidates: no GPU with index " + std::string(item) + " (NVML reports " +
                    std::to_string(gpus.size()) + ")");
  }
  for (const GpuForTrial& gpu : gpus) {
    if (EqualsIgnoreCase(gpu.device.uuid, item)) {
      if (gpu.device.mig_enabled) return InMigMode(gpu, item);
      return WholeGpu(gpu.device);
    }
    for (size_t i = 0; i < gpu.device.mig_instances.size() && i < gpu.mig_uuids.size(); ++i)
      if (!gpu.mig_uuids[i].empty() && EqualsIgnoreCase(gpu.mig_uuids[i], item)) return MigCandidate(gpu, i);
  }
  return NotFound("--candidates: '" + std::string(item) +
                  "' is neither a GPU index nor a GPU or MIG UUID NVML reports");
}

}  // namespace

std::optional<double> MigGpuFraction(std::string_view catalog_id, std::string_view profile, std::string* basis) {
  const MigGeometry* geometry = catalog_id.empty() ? nullptr : FindMigGeometry(catalog_id);
  if (geometry == nullptr) {
    *basis = "unknown: the MIG catalog has no geometry for " +
             (catalog_id.empty() ? "this GPU" : std::string(catalog_id));
    return std::nullopt;
  }
  const MigProfileSpec* spec = FindMigProfile(*geometry, profile);
  if (spec == nullptr || geometry->compute_slice_count <= 0) {
    *basis = "unknown: the MIG catalog of " + geometry->device_id + " has no profile " + std::string(profile);
    return std::nullopt;
  }
  int slices = spec->compute_slices;
  // "1c.3g.71gb": a compute instance with 1 of its GPU instance's 3 slices; it shares the
  // GPU instance's memory with the other compute instances there.
  std::vector<std::string_view> parts = Split(profile, '.');
  bool compute_instance = parts.size() == 3 && EndsWith(parts[0], "c");
  if (compute_instance) {
    std::optional<int64_t> c = ParseInt64(parts[0].substr(0, parts[0].size() - 1));
    if (!c || *c <= 0 || *c > spec->compute_slices) {
      *basis = "unknown: cannot read the compute slices of " + std::string(profile);
      return std::nullopt;
    }
    slices = static_cast<int>(*c);
  }
  *basis = std::to_string(slices) + " of " + std::to_string(geometry->compute_slice_count) + " compute slices (" +
           geometry->device_id + " " + spec->name + (compute_instance ? ", compute instance; memory shared)" : ")");
  return static_cast<double>(slices) / geometry->compute_slice_count;
}

Result<std::vector<TrialCandidate>> EnumerateCandidates(const std::vector<GpuForTrial>& gpus, std::string_view spec,
                                                        std::vector<std::string>* skipped) {
  std::vector<TrialCandidate> candidates;
  std::string_view trimmed = Trim(spec);
  if (trimmed == "auto") {
    for (const GpuForTrial& gpu : gpus) {
      if (!gpu.device.mig_enabled) {
        candidates.push_back(WholeGpu(gpu.device));
      } else {
        for (size_t i = 0; i < gpu.device.mig_instances.size(); ++i) candidates.push_back(MigCandidate(gpu, i));
      }
    }
    std::vector<TrialCandidate> usable;
    for (TrialCandidate& c : candidates) {
      if (Status has_uuid = CheckUuid(c); !has_uuid.ok()) {
        if (skipped != nullptr) skipped->push_back(has_uuid.message());
        continue;
      }
      usable.push_back(std::move(c));
    }
    if (usable.empty()) {
      if (!candidates.empty()) return CheckUuid(candidates.front());
      return NotFound("--candidates auto: NVML reports no GPU and no MIG instance to run on");
    }
    return usable;
  }
  if (trimmed.empty()) return InvalidInput("--candidates: empty; give auto or a comma list of GPU indexes / UUIDs");
  std::set<std::string> seen;
  for (std::string_view raw : Split(trimmed, ',')) {
    std::string_view item = Trim(raw);
    if (item.empty()) return InvalidInput("--candidates: empty item in '" + std::string(trimmed) + "'");
    KRAKEN_ASSIGN_OR_RETURN(TrialCandidate c, FindCandidate(gpus, item));
    KRAKEN_RETURN_IF_ERROR(CheckUuid(c));
    if (!seen.insert(ToLower(c.uuid)).second)
      return InvalidInput("--candidates: '" + std::string(item) + "' names " + c.uuid + " a second time");
    candidates.push_back(std::move(c));
  }
  return candidates;
}

}  // namespace kraken::profiling
