// libkraken_nvml_replay.so, part 1: library, system, enumeration and device facts,
// answered from a capture (replay_state.h). The library exports the same symbol names as the
// driver's libnvidia-ml.so.1, versioned ones included, so that kraken loads it through the
// very dlopen path it uses for the driver. Built a second time with
// KRAKEN_NVML_REPLAY_LEGACY it exports only the unversioned names (and no GPM), like an old
// driver, to test the loader's fallbacks. See docs/nvml-capture-format.md.
#include "collectors/nvml/nvml_return_codes.h"
#include "collectors/nvml/replay/replay_helpers.h"

using namespace kraken::nvml;
using namespace kraken::nvml::replay;

// ---- Library, system, enumeration ----

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlInit() {
  ReplayState& s = ReplayState::Get();
  Lock lock(s.mutex());
  return s.Init();
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlShutdown() {
  ReplayState& s = ReplayState::Get();
  Lock lock(s.mutex());
  return s.Shutdown();
}

KRAKEN_NVML_EXPORT const char* nvmlErrorString(nvmlReturn_t rc) { return ReturnCodeDescription(rc).data(); }

// Not an NVML function: why the last nvmlInit of the replay failed (a capture error).
KRAKEN_NVML_EXPORT const char* krakenNvmlReplayLastError() {
  static thread_local std::string copy;
  ReplayState& s = ReplayState::Get();
  Lock lock(s.mutex());
  copy = s.last_error();
  return copy.c_str();
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  return Locked([&](ReplayState& s) { return GiveText(s.capture().system.driver_version, version, length); });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  return Locked([&](ReplayState& s) { return GiveText(s.capture().system.nvml_version, version, length); });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* version) {
  return Locked([&](ReplayState& s) { return Give(s.capture().system.cuda_driver_version, version); });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int* count) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) {
    *count = static_cast<unsigned int>(s.capture().devices.size());
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device) {
  if (device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) {
    nvmlDevice_t handle = s.GpuHandle(index);
    if (handle == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *device = handle;
    return NVML_SUCCESS;
  });
}

// ---- Device facts ----

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* h = s.Resolve(device);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    const DeviceFacts& d = s.capture().devices[h->device];
    return GiveText(h->mig >= 0 ? d.migs[static_cast<size_t>(h->mig)].name : d.name, name, length);
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* h = s.Resolve(device);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    const DeviceFacts& d = s.capture().devices[h->device];
    return GiveText(h->mig >= 0 ? d.migs[static_cast<size_t>(h->mig)].uuid : d.uuid, uuid, length);
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return DevicePci(device, pci, true);
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t* attributes) {
  return AttributesOf(device, attributes);
}

#define KRAKEN_GPU_FACT(function, field, type)                                            \
  KRAKEN_NVML_EXPORT nvmlReturn_t function(nvmlDevice_t device, type* out) {              \
    return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) { return Give(d.field, out); }); \
  }
KRAKEN_GPU_FACT(nvmlDeviceGetMinorNumber, minor_number, unsigned int)
KRAKEN_GPU_FACT(nvmlDeviceGetArchitecture, architecture, unsigned int)
KRAKEN_GPU_FACT(nvmlDeviceGetNumGpuCores, num_gpu_cores, unsigned int)
KRAKEN_GPU_FACT(nvmlDeviceGetEnforcedPowerLimit, power_limit_mw, unsigned int)
KRAKEN_GPU_FACT(nvmlDeviceGetMaxPcieLinkGeneration, pcie_max_generation, unsigned int)
KRAKEN_GPU_FACT(nvmlDeviceGetMaxPcieLinkWidth, pcie_max_width, unsigned int)
KRAKEN_GPU_FACT(nvmlDeviceGetNumaNodeId, numa_node, unsigned int)
KRAKEN_GPU_FACT(nvmlDeviceGetMaxMigDeviceCount, max_mig_devices, unsigned int)
#undef KRAKEN_GPU_FACT

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  if (major == nullptr || minor == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) {
    if (!d.compute_capability.ok()) return d.compute_capability.rc;
    *major = d.compute_capability.value.first;
    *minor = d.compute_capability.value.second;
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int* clock) {
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) -> nvmlReturn_t {
    if (type == NVML_CLOCK_SM) return Give(d.max_sm_clock_mhz, clock);
    if (type == NVML_CLOCK_MEM) return Give(d.max_mem_clock_mhz, clock);
    return type >= 0 && type <= 3 ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current, unsigned int* pending) {
  if (current == nullptr || pending == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) {
    if (!d.mig_mode.ok()) return d.mig_mode.rc;
    *current = d.mig_mode.value.first;
    *pending = d.mig_mode.value.second;
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                                     nvmlDevice_t* mig) {
  if (mig == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState& s, const DeviceFacts& d, uint32_t gpu) -> nvmlReturn_t {
    for (size_t m = 0; m < d.migs.size(); ++m)
      if (d.migs[m].index == index) {
        *mig = s.MigHandle(gpu, static_cast<uint32_t>(m));
        return *mig != nullptr ? NVML_SUCCESS : NVML_ERROR_UNKNOWN;
      }
    return NVML_ERROR_NOT_FOUND;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) {
  return MigId(device, id, [](const MigFacts& m) -> const Answer<uint32_t>& { return m.gpu_instance_id; });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int* id) {
  return MigId(device, id, [](const MigFacts& m) -> const Answer<uint32_t>& { return m.compute_instance_id; });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device, unsigned int size, unsigned long* set) {
  if (set == nullptr || size == 0) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) {
    if (!d.cpu_affinity.ok()) return d.cpu_affinity.rc;
    std::fill(set, set + size, 0UL);
    constexpr unsigned int kBits = sizeof(unsigned long) * 8;
    for (uint32_t cpu : d.cpu_affinity.value)
      if (cpu / kBits < size) set[cpu / kBits] |= 1UL << (cpu % kBits);
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int* level) {
  if (level == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* ha = s.Resolve(a);
    const DeviceHandle* hb = s.Resolve(b);
    if (ha == nullptr || hb == nullptr || ha->mig >= 0 || hb->mig >= 0 || ha->device == hb->device)
      return NVML_ERROR_INVALID_ARGUMENT;
    uint32_t lo = std::min(ha->device, hb->device), hi = std::max(ha->device, hb->device);
    for (const TopologyLink& t : s.capture().topology)
      if (t.a == lo && t.b == hi) return Give(t.common_ancestor, level);
    return NVML_ERROR_NOT_SUPPORTED;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, int* active) {
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) -> nvmlReturn_t {
    if (link >= d.nvlinks.size()) return d.nvlinks.empty() ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    return Give(d.nvlinks[link].state, active);
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link,
                                                                  nvmlPciInfo_t* pci) {
  return RemotePci(device, link, pci, true);
}
