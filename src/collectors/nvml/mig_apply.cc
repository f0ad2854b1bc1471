#include "collectors/nvml/mig_apply.h"

#include <algorithm>
#include <map>

#include "collectors/nvml/nvml_return_codes.h"

namespace kraken::nvml {
namespace {

// The GPU-instance profiles kraken knows, for finding what a GPU has now.
constexpr unsigned int kKnownGiProfiles[] = {
    NVML_GPU_INSTANCE_PROFILE_1_SLICE, NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, NVML_GPU_INSTANCE_PROFILE_2_SLICE,
    NVML_GPU_INSTANCE_PROFILE_3_SLICE, NVML_GPU_INSTANCE_PROFILE_4_SLICE, NVML_GPU_INSTANCE_PROFILE_7_SLICE};
constexpr unsigned int kComputeProfiles = 5;  // NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE .. 7_SLICE
constexpr unsigned int kMaxInstances = 8;

std::string Gpu(unsigned int index) { return "GPU " + std::to_string(index); }

std::string ProfileWords(unsigned int profile) {
  switch (profile) {
    case NVML_GPU_INSTANCE_PROFILE_1_SLICE: return "1-slice";
    case NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2: return "1-slice double-memory";
    case NVML_GPU_INSTANCE_PROFILE_2_SLICE: return "2-slice";
    case NVML_GPU_INSTANCE_PROFILE_3_SLICE: return "3-slice";
    case NVML_GPU_INSTANCE_PROFILE_4_SLICE: return "4-slice";
    case NVML_GPU_INSTANCE_PROFILE_7_SLICE: return "7-slice";
  }
  return "profile " + std::to_string(profile);
}

Status Failed(unsigned int index, const std::string& call, nvmlReturn_t rc) {
  return InvalidInput(Gpu(index) + ": " + call + " failed: " + std::string(ReturnCodeDescription(rc)));
}

// Refuses a GPU that is not in MIG mode or runs processes.
Status CheckGpu(NvmlApi& nvml, nvmlDevice_t device, unsigned int index) {
  unsigned int current = 0, pending = 0;
  nvmlReturn_t rc = nvml.DeviceGetMigMode(device, &current, &pending);
  if (rc != NVML_SUCCESS) return Failed(index, "nvmlDeviceGetMigMode", rc);
  if (current != NVML_DEVICE_MIG_ENABLE)
    return InvalidInput(Gpu(index) + ": MIG mode is off; enable it first (nvidia-smi -i " + std::to_string(index) +
                        " -mig 1, which takes effect after a GPU reset)");
  std::vector<nvmlProcessInfo_t> processes(64);
  unsigned int count = static_cast<unsigned int>(processes.size());
  rc = nvml.DeviceGetComputeRunningProcesses(device, &count, processes.data());
  if (rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_FOUND) return Failed(index, "nvmlDeviceGetComputeRunningProcesses", rc);
  if (rc == NVML_SUCCESS && count > 0) {
    std::string pids;
    for (unsigned int i = 0; i < std::min<unsigned int>(count, 8); ++i)
      pids += (i ? ", " : "") + std::to_string(processes[i].pid);
    return InvalidInput(Gpu(index) + " runs " + std::to_string(count) + " process(es) (pid " + pids +
                        "): destroying its MIG instances would kill them; stop them first");
  }
  return Status::Ok();
}

struct Existing {
  std::vector<std::pair<nvmlGpuInstance_t, unsigned int>> gis;  // handle, GI profile enum
  std::map<unsigned int, int> counts;                            // GI profile enum -> instances
};

Result<Existing> ReadExisting(NvmlApi& nvml, nvmlDevice_t device, unsigned int index) {
  Existing out;
  for (unsigned int profile : kKnownGiProfiles) {
    nvmlGpuInstanceProfileInfo_t info{};
    nvmlReturn_t rc = nvml.DeviceGetGpuInstanceProfileInfo(device, profile, &info);
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT) continue;
    if (rc != NVML_SUCCESS) return Failed(index, "nvmlDeviceGetGpuInstanceProfileInfo", rc);
    nvmlGpuInstance_t gis[kMaxInstances] = {};
    unsigned int count = kMaxInstances;
    rc = nvml.DeviceGetGpuInstances(device, info.id, gis, &count);
    if (rc != NVML_SUCCESS) return Failed(index, "nvmlDeviceGetGpuInstances", rc);
    for (unsigned int i = 0; i < std::min(count, kMaxInstances); ++i) {
      out.gis.emplace_back(gis[i], profile);
      ++out.counts[profile];
    }
  }
  return out;
}

Status DestroyGpuInstance(NvmlApi& nvml, nvmlGpuInstance_t gi, unsigned int index) {
  for (unsigned int profile = 0; profile < kComputeProfiles; ++profile) {
    nvmlComputeInstanceProfileInfo_t info{};
    if (nvml.GpuInstanceGetComputeInstanceProfileInfo(gi, profile, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED,
                                                      &info) != NVML_SUCCESS)
      continue;
    nvmlComputeInstance_t cis[kMaxInstances] = {};
    unsigned int count = kMaxInstances;
    nvmlReturn_t rc = nvml.GpuInstanceGetComputeInstances(gi, info.id, cis, &count);
    if (rc != NVML_SUCCESS) return Failed(index, "nvmlGpuInstanceGetComputeInstances", rc);
    for (unsigned int i = 0; i < std::min(count, kMaxInstances); ++i)
      if ((rc = nvml.ComputeInstanceDestroy(cis[i])) != NVML_SUCCESS)
        return Failed(index, "nvmlComputeInstanceDestroy", rc);
  }
  nvmlReturn_t rc = nvml.GpuInstanceDestroy(gi);
  return rc == NVML_SUCCESS ? Status::Ok() : Failed(index, "nvmlGpuInstanceDestroy", rc);
}

Status Create(NvmlApi& nvml, nvmlDevice_t device, unsigned int index, const MigInstanceRequest& want) {
  nvmlGpuInstanceProfileInfo_t info{};
  nvmlReturn_t rc = nvml.DeviceGetGpuInstanceProfileInfo(device, want.gi_profile, &info);
  if (rc != NVML_SUCCESS) return Failed(index, "nvmlDeviceGetGpuInstanceProfileInfo (" + want.profile + ")", rc);
  if (info.id != want.expected_id)
    return InvalidInput(Gpu(index) + ": the driver numbers profile " + want.profile + " " + std::to_string(info.id) +
                        ", kraken's MIG table " + std::to_string(want.expected_id) + "; not applying to a GPU "
                        "whose profiles kraken does not know");
  nvmlGpuInstance_t gi = nullptr;
  if ((rc = nvml.DeviceCreateGpuInstance(device, info.id, &gi)) != NVML_SUCCESS)
    return Failed(index, "nvmlDeviceCreateGpuInstance (" + want.profile + ")", rc);
  nvmlComputeInstanceProfileInfo_t ci_info{};
  rc = nvml.GpuInstanceGetComputeInstanceProfileInfo(gi, want.ci_profile, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED,
                                                     &ci_info);
  if (rc != NVML_SUCCESS) return Failed(index, "nvmlGpuInstanceGetComputeInstanceProfileInfo", rc);
  nvmlComputeInstance_t ci = nullptr;
  rc = nvml.GpuInstanceCreateComputeInstance(gi, ci_info.id, &ci);
  return rc == NVML_SUCCESS ? Status::Ok() : Failed(index, "nvmlGpuInstanceCreateComputeInstance", rc);
}

}  // namespace

Result<std::vector<std::string>> ApplyMigLayout(NvmlApi& nvml, unsigned int index,
                                                const std::vector<MigInstanceRequest>& wanted,
                                                const MigApplyOptions& options) {
  nvmlDevice_t device = nullptr;
  nvmlReturn_t rc = nvml.DeviceGetHandleByIndex(index, &device);
  if (rc != NVML_SUCCESS) return Failed(index, "nvmlDeviceGetHandleByIndex", rc);
  unsigned int current = 0, pending = 0;
  if (wanted.empty() && nvml.DeviceGetMigMode(device, &current, &pending) == NVML_SUCCESS &&
      current != NVML_DEVICE_MIG_ENABLE)
    return std::vector<std::string>{Gpu(index) + ": MIG off, as planned: nothing to do"};
  KRAKEN_RETURN_IF_ERROR(CheckGpu(nvml, device, index));
  KRAKEN_ASSIGN_OR_RETURN(Existing existing, ReadExisting(nvml, device, index));
  std::map<unsigned int, int> planned;
  for (const MigInstanceRequest& w : wanted) ++planned[w.gi_profile];
  std::vector<std::string> steps;
  if (planned == existing.counts) {
    steps.push_back(Gpu(index) + ": already has the planned layout: nothing to do");
    return steps;
  }
  const std::string verb = options.dry_run ? "would " : "";
  for (const auto& [gi, profile] : existing.gis) {
    steps.push_back(Gpu(index) + ": " + verb + "destroy a " + ProfileWords(profile) +
                    " GPU instance and its compute instances");
    if (!options.dry_run) KRAKEN_RETURN_IF_ERROR(DestroyGpuInstance(nvml, gi, index));
  }
  for (const MigInstanceRequest& w : wanted) {
    steps.push_back(Gpu(index) + ": " + verb + "create " + w.profile + " (GPU instance profile id " +
                    std::to_string(w.expected_id) + ", one compute instance)");
    if (!options.dry_run) KRAKEN_RETURN_IF_ERROR(Create(nvml, device, index, w));
  }
  return steps;
}

}  // namespace kraken::nvml
