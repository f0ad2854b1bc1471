// libkraken_nvml_replay.so, part 3: MIG management (GPU and compute instances created and
// destroyed), on a layout seeded from the capture's MIG devices. Every call is appended to
// the file KRAKEN_NVML_REPLAY_CALLS names (one line: function, arguments, result), so tests
// see exactly which calls `kraken mig apply` made and in which order.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "collectors/nvml/nvml_return_codes.h"
#include "collectors/nvml/replay/replay_helpers.h"

using namespace kraken::nvml;
using namespace kraken::nvml::replay;

namespace {

// GPU-instance profiles: NVML's enum -> the profile id and compute slices the driver gives
// on an A100/H100/H200 (nvidia-smi mig -lgip).
struct GiProfile {
  unsigned int profile;
  unsigned int id;
  unsigned int slices;
};
constexpr GiProfile kGiProfiles[] = {{NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, 1},
                                     {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, 1},
                                     {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, 2},
                                     {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, 3},
                                     {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, 4},
                                     {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, 7}};
constexpr unsigned int kCiSlices[] = {1, 2, 3, 4, 7};  // compute-instance profile enum (= id) -> slices

struct ReplayCi {
  unsigned int id = 0;
  unsigned int profile_id = 0;
  bool alive = true;
};

struct ReplayGi {
  uint32_t device = 0;
  unsigned int id = 0;
  unsigned int profile_id = 0;
  unsigned int slices = 0;
  bool alive = true;
  std::vector<std::unique_ptr<ReplayCi>> cis;
};

struct MigLayouts {
  bool seeded = false;
  std::vector<std::unique_ptr<ReplayGi>> gis;  // handles point at these; never erased
};

MigLayouts& Layouts() {
  static MigLayouts layouts;
  return layouts;
}

void LogCall(const std::string& line) {
  const char* path = std::getenv("KRAKEN_NVML_REPLAY_CALLS");
  if (path == nullptr || *path == '\0') return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

nvmlReturn_t Logged(const std::string& call, nvmlReturn_t rc, const std::string& result = "") {
  LogCall(call + " -> " + std::string(ReturnCodeName(rc)) + (result.empty() ? "" : " " + result));
  return rc;
}

// The capture's MIG devices as the starting layout: one GPU instance (and its compute
// instance) per captured MIG device; a 1-slice instance with at least twice the smallest
// 1-slice memory is the REV2 (double-memory) profile.
void Seed(ReplayState& s) {
  MigLayouts& l = Layouts();
  if (l.seeded) return;
  l.seeded = true;
  for (uint32_t d = 0; d < s.capture().devices.size(); ++d) {
    const auto& migs = s.capture().devices[d].migs;
    uint64_t smallest_1g = 0;
    for (const MigFacts& m : migs)
      if (m.attributes.ok() && m.attributes.value.gpu_instance_slices == 1 &&
          (smallest_1g == 0 || m.attributes.value.memory_mib < smallest_1g))
        smallest_1g = m.attributes.value.memory_mib;
    for (const MigFacts& m : migs) {
      if (!m.attributes.ok() || !m.gpu_instance_id.ok()) continue;
      auto gi = std::make_unique<ReplayGi>();
      gi->device = d;
      gi->id = m.gpu_instance_id.value;
      gi->slices = m.attributes.value.gpu_instance_slices;
      bool rev2 = gi->slices == 1 && m.attributes.value.memory_mib >= 2 * smallest_1g;
      for (const GiProfile& p : kGiProfiles)
        if (p.slices == gi->slices && (gi->slices != 1 || (p.id == 15) == rev2)) gi->profile_id = p.id;
      auto ci = std::make_unique<ReplayCi>();
      ci->id = m.compute_instance_id.ok() ? m.compute_instance_id.value : 0;
      for (unsigned int k = 0; k < 5; ++k)
        if (kCiSlices[k] == m.attributes.value.compute_instance_slices) ci->profile_id = k;
      gi->cis.push_back(std::move(ci));
      l.gis.push_back(std::move(gi));
    }
  }
}

ReplayGi* FindGi(nvmlGpuInstance_t handle) {
  for (auto& gi : Layouts().gis)
    if (reinterpret_cast<nvmlGpuInstance_t>(gi.get()) == handle && gi->alive) return gi.get();
  return nullptr;
}

// The GPU a device handle names, seeded; -1 when it is not a GPU of the replay.
int64_t GpuOf(ReplayState& s, nvmlDevice_t device) {
  const DeviceHandle* h = s.Resolve(device);
  if (h == nullptr || h->mig >= 0) return -1;
  Seed(s);
  return h->device;
}

std::string Dev(ReplayState& s, nvmlDevice_t device) {
  int64_t gpu = GpuOf(s, device);
  return "device=" + (gpu < 0 ? std::string("?") : std::to_string(gpu));
}

}  // namespace

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                                    nvmlGpuInstanceProfileInfo_t* info) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    std::string call = "nvmlDeviceGetGpuInstanceProfileInfo " + Dev(s, device) + " profile=" + std::to_string(profile);
    if (GpuOf(s, device) < 0 || info == nullptr) return Logged(call, NVML_ERROR_INVALID_ARGUMENT);
    for (const GiProfile& p : kGiProfiles) {
      if (p.profile != profile) continue;
      *info = nvmlGpuInstanceProfileInfo_t{};
      info->id = p.id;
      info->sliceCount = p.slices;
      info->instanceCount = 7 / p.slices;
      return Logged(call, NVML_SUCCESS, "id=" + std::to_string(p.id));
    }
    return Logged(call, NVML_ERROR_NOT_SUPPORTED);
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profile_id,
                                                          nvmlGpuInstance_t* gis, unsigned int* count) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    std::string call = "nvmlDeviceGetGpuInstances " + Dev(s, device) + " profile_id=" + std::to_string(profile_id);
    int64_t gpu = GpuOf(s, device);
    if (gpu < 0 || gis == nullptr || count == nullptr) return Logged(call, NVML_ERROR_INVALID_ARGUMENT);
    unsigned int n = 0;
    std::string ids;
    for (auto& gi : Layouts().gis) {
      if (!gi->alive || gi->device != gpu || gi->profile_id != profile_id) continue;
      gis[n++] = reinterpret_cast<nvmlGpuInstance_t>(gi.get());
      if (!ids.empty()) ids.push_back(',');
      ids.append(std::to_string(gi->id));
    }
    *count = n;
    return Logged(call, NVML_SUCCESS, "gis=[" + ids + "]");
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceCreateGpuInstance(nvmlDevice_t device, unsigned int profile_id,
                                                            nvmlGpuInstance_t* out) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    std::string call = "nvmlDeviceCreateGpuInstance " + Dev(s, device) + " profile_id=" + std::to_string(profile_id);
    int64_t gpu = GpuOf(s, device);
    const GiProfile* profile = nullptr;
    for (const GiProfile& p : kGiProfiles)
      if (p.id == profile_id) profile = &p;
    if (gpu < 0 || out == nullptr || profile == nullptr) return Logged(call, NVML_ERROR_INVALID_ARGUMENT);
    unsigned int used = 0, id = 1;
    std::vector<bool> taken(64, false);
    for (auto& gi : Layouts().gis)
      if (gi->alive && gi->device == gpu) {
        used += gi->slices;
        if (gi->id < taken.size()) taken[gi->id] = true;
      }
    if (used + profile->slices > 7) return Logged(call, NVML_ERROR_INSUFFICIENT_RESOURCES);
    while (id < taken.size() && taken[id]) ++id;
    auto gi = std::make_unique<ReplayGi>();
    gi->device = static_cast<uint32_t>(gpu);
    gi->id = id;
    gi->profile_id = profile_id;
    gi->slices = profile->slices;
    *out = reinterpret_cast<nvmlGpuInstance_t>(gi.get());
    Layouts().gis.push_back(std::move(gi));
    return Logged(call, NVML_SUCCESS, "gi=" + std::to_string(id));
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t handle) {
  return Locked([&](ReplayState&) -> nvmlReturn_t {
    ReplayGi* gi = FindGi(handle);
    std::string call = "nvmlGpuInstanceDestroy gi=" + (gi ? std::to_string(gi->id) : std::string("?"));
    if (gi == nullptr) return Logged(call, NVML_ERROR_INVALID_ARGUMENT);
    for (auto& ci : gi->cis)
      if (ci->alive) return Logged(call, NVML_ERROR_IN_USE);
    gi->alive = false;
    return Logged(call, NVML_SUCCESS);
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t handle,
                                                                             unsigned int profile, unsigned int engine,
                                                                             nvmlComputeInstanceProfileInfo_t* info) {
  return Locked([&](ReplayState&) -> nvmlReturn_t {
    ReplayGi* gi = FindGi(handle);
    std::string call = "nvmlGpuInstanceGetComputeInstanceProfileInfo gi=" +
                       (gi ? std::to_string(gi->id) : std::string("?")) + " profile=" + std::to_string(profile) +
                       " engine=" + std::to_string(engine);
    if (gi == nullptr || info == nullptr) return Logged(call, NVML_ERROR_INVALID_ARGUMENT);
    if (profile >= 5 || kCiSlices[profile] > gi->slices || engine != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
      return Logged(call, NVML_ERROR_NOT_SUPPORTED);
    *info = nvmlComputeInstanceProfileInfo_t{};
    info->id = profile;
    info->sliceCount = kCiSlices[profile];
    info->instanceCount = gi->slices / kCiSlices[profile];
    return Logged(call, NVML_SUCCESS, "id=" + std::to_string(profile));
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t handle, unsigned int profile_id,
                                                                   nvmlComputeInstance_t* cis, unsigned int* count) {
  return Locked([&](ReplayState&) -> nvmlReturn_t {
    ReplayGi* gi = FindGi(handle);
    std::string call = "nvmlGpuInstanceGetComputeInstances gi=" + (gi ? std::to_string(gi->id) : std::string("?")) +
                       " profile_id=" + std::to_string(profile_id);
    if (gi == nullptr || cis == nullptr || count == nullptr) return Logged(call, NVML_ERROR_INVALID_ARGUMENT);
    unsigned int n = 0;
    for (auto& ci : gi->cis)
      if (ci->alive && ci->profile_id == profile_id) cis[n++] = reinterpret_cast<nvmlComputeInstance_t>(ci.get());
    *count = n;
    return Logged(call, NVML_SUCCESS, "count=" + std::to_string(n));
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t handle, unsigned int profile_id,
                                                                     nvmlComputeInstance_t* out) {
  return Locked([&](ReplayState&) -> nvmlReturn_t {
    ReplayGi* gi = FindGi(handle);
    std::string call = "nvmlGpuInstanceCreateComputeInstance gi=" + (gi ? std::to_string(gi->id) : std::string("?")) +
                       " profile_id=" + std::to_string(profile_id);
    if (gi == nullptr || out == nullptr || profile_id >= 5) return Logged(call, NVML_ERROR_INVALID_ARGUMENT);
    unsigned int used = 0;
    for (auto& ci : gi->cis)
      if (ci->alive) used += kCiSlices[ci->profile_id];
    if (used + kCiSlices[profile_id] > gi->slices) return Logged(call, NVML_ERROR_INSUFFICIENT_RESOURCES);
    auto ci = std::make_unique<ReplayCi>();
    ci->id = static_cast<unsigned int>(gi->cis.size());
    ci->profile_id = profile_id;
    *out = reinterpret_cast<nvmlComputeInstance_t>(ci.get());
    gi->cis.push_back(std::move(ci));
    return Logged(call, NVML_SUCCESS, "ci=" + std::to_string(gi->cis.back()->id));
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t handle) {
  return Locked([&](ReplayState&) -> nvmlReturn_t {
    for (auto& gi : Layouts().gis)
      for (auto& ci : gi->cis)
        if (reinterpret_cast<nvmlComputeInstance_t>(ci.get()) == handle && ci->alive && gi->alive) {
          ci->alive = false;
          return Logged("nvmlComputeInstanceDestroy gi=" + std::to_string(gi->id) + " ci=" + std::to_string(ci->id),
                        NVML_SUCCESS);
        }
    return Logged("nvmlComputeInstanceDestroy ci=?", NVML_ERROR_INVALID_ARGUMENT);
  });
}
