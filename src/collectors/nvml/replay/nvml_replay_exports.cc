// libkraken_nvml_replay.so: the NVML C API, answered from a capture file (replay_state.h).
// Exports the same symbol names as the driver's libnvidia-ml.so.1, versioned ones
// included, so that kraken loads it through the very dlopen path it uses for the driver.
// Built a second time with KRAKEN_NVML_REPLAY_LEGACY, it exports only the unversioned
// names (and no GPM), like an old driver, to test the loader's fallbacks.
//
// Every entry point checks its pointers and handles and answers an error code; nothing a
// caller or a capture does may crash it.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "collectors/nvml/nvml_return_codes.h"
#include "collectors/nvml/replay/replay_state.h"

#define KRAKEN_NVML_EXPORT extern "C" __attribute__((visibility("default")))

namespace kraken::nvml::replay {
namespace {

using Lock = std::lock_guard<std::mutex>;

template <typename Body>
nvmlReturn_t Locked(Body body) {
  ReplayState& s = ReplayState::Get();
  Lock lock(s.mutex());
  if (!s.initialized()) return NVML_ERROR_UNINITIALIZED;
  return body(s);
}

// A query on a GPU handle (a MIG device handle answers NOT_SUPPORTED).
template <typename Body>
nvmlReturn_t OnGpu(nvmlDevice_t handle, Body body) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* h = s.Resolve(handle);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (h->mig >= 0) return NVML_ERROR_NOT_SUPPORTED;
    return body(s, s.capture().devices[h->device], h->device);
  });
}

template <typename Body>
nvmlReturn_t OnGpuFrame(nvmlDevice_t handle, Body body) {
  return OnGpu(handle, [&](ReplayState& s, const DeviceFacts&, uint32_t device) {
    return body(s, s.CurrentFrame().devices[device]);
  });
}

template <typename T, typename Out>
nvmlReturn_t Give(const Answer<T>& answer, Out* out) {
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!answer.ok()) return answer.rc;
  *out = static_cast<Out>(answer.value);
  return NVML_SUCCESS;
}

nvmlReturn_t CopyText(const std::string& text, char* buffer, unsigned int length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t GiveText(const Answer<std::string>& answer, char* buffer, unsigned int length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!answer.ok()) return answer.rc;
  return CopyText(answer.value, buffer, length);
}

void FillAttributes(const Attributes& a, nvmlDeviceAttributes_t* out) {
  out->multiprocessorCount = a.sm_count;
  out->sharedCopyEngineCount = a.shared_copy_engines;
  out->sharedDecoderCount = a.shared_decoders;
  out->sharedEncoderCount = a.shared_encoders;
  out->sharedJpegCount = a.shared_jpegs;
  out->sharedOfaCount = a.shared_ofas;
  out->gpuInstanceSliceCount = a.gpu_instance_slices;
  out->computeInstanceSliceCount = a.compute_instance_slices;
  out->memorySizeMB = a.memory_mib;
}

// `legacy`: the v1 call, which fills only the 16-byte legacy bus id.
void FillPci(const PciInfo& p, nvmlPciInfo_t* out, bool legacy) {
  std::memset(out, 0, sizeof(*out));
  out->domain = p.domain;
  out->bus = p.bus;
  out->device = p.device;
  out->pciDeviceId = p.device_id;
  out->pciSubSystemId = p.subsystem_id;
  std::snprintf(out->busIdLegacy, sizeof(out->busIdLegacy), "%04X:%02X:%02X.0", p.domain & 0xFFFF, p.bus & 0xFF,
                p.device & 0xFF);
  if (!legacy) std::snprintf(out->busId, sizeof(out->busId), "%s", p.bus_id.c_str());
}

nvmlReturn_t DevicePci(nvmlDevice_t device, nvmlPciInfo_t* pci, bool legacy) {
  if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) {
    if (!d.pci.ok()) return d.pci.rc;
    FillPci(d.pci.value, pci, legacy);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t AttributesOf(nvmlDevice_t device, nvmlDeviceAttributes_t* attributes) {
  if (attributes == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* h = s.Resolve(device);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    const DeviceFacts& d = s.capture().devices[h->device];
    const Answer<Attributes>& a = h->mig >= 0 ? d.migs[static_cast<size_t>(h->mig)].attributes : d.attributes;
    if (!a.ok()) return a.rc;
    FillAttributes(a.value, attributes);
    return NVML_SUCCESS;
  });
}

// The memory answer of a GPU or of a MIG device's GPU instance in the current frame.
const Answer<MemoryInfo>* MemoryOf(ReplayState& s, const DeviceHandle& h) {
  const DeviceFrame& frame = s.CurrentFrame().devices[h.device];
  if (h.mig < 0) return &frame.memory;
  const MigFacts& mig = s.capture().devices[h.device].migs[static_cast<size_t>(h.mig)];
  if (!mig.gpu_instance_id.ok()) return nullptr;
  auto it = frame.migs.find(mig.gpu_instance_id.value);
  return it == frame.migs.end() ? nullptr : &it->second.memory;
}

template <typename Fill>
nvmlReturn_t Memory(nvmlDevice_t device, const char* function, Fill fill) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    if (s.VersionMismatch(function)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const DeviceHandle* h = s.Resolve(device);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    const Answer<MemoryInfo>* m = MemoryOf(s, *h);
    if (m == nullptr) return NVML_ERROR_NOT_SUPPORTED;
    if (!m->ok()) return m->rc;
    fill(m->value);
    return NVML_SUCCESS;
  });
}

template <typename Info>
nvmlReturn_t Processes(nvmlDevice_t device, unsigned int* count, Info* infos) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpuFrame(device, [&](ReplayState&, const DeviceFrame& f) -> nvmlReturn_t {
    if (!f.processes.ok()) return f.processes.rc;
    const auto& list = f.processes.value;
    unsigned int needed = static_cast<unsigned int>(list.size());
    if (*count < needed || (infos == nullptr && needed > 0)) {
      *count = needed;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned int i = 0; i < needed; ++i) {
      std::memset(&infos[i], 0, sizeof(Info));
      infos[i].pid = list[i].pid;
      infos[i].usedGpuMemory = list[i].used_bytes;
      if constexpr (sizeof(Info) == sizeof(nvmlProcessInfo_t)) {
        infos[i].gpuInstanceId = list[i].gpu_instance_id;
        infos[i].computeInstanceId = list[i].compute_instance_id;
      }
    }
    *count = needed;
    return NVML_SUCCESS;
  });
}

nvmlReturn_t RemotePci(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t* pci, bool legacy) {
  if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) -> nvmlReturn_t {
    if (link >= d.nvlinks.size()) return d.nvlinks.empty() ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    const Answer<std::string>& remote = d.nvlinks[link].remote;
    if (!remote.ok()) return remote.rc;
    kraken::nvml::PciInfo info;
    info.bus_id = remote.value;
    // "00000000:18:00.0": domain, bus and device are hex fields of the id.
    unsigned int domain = 0, bus = 0, dev = 0;
    if (std::sscanf(remote.value.c_str(), "%x:%x:%x", &domain, &bus, &dev) == 3) {
      info.domain = domain;
      info.bus = bus;
      info.device = dev;
    }
    FillPci(info, pci, legacy);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t WaitEvent(nvmlEventSet_t set, nvmlEventData_t* data) {
  if (data == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    EventSetSlot* slot = s.FindEventSet(set);
    if (slot == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (slot->pending.empty()) return NVML_ERROR_TIMEOUT;  // the replay never blocks
    auto [device, xid] = slot->pending.front();
    slot->pending.pop_front();
    std::memset(data, 0, sizeof(*data));
    data->device = s.GpuHandle(device);
    data->eventType = nvmlEventTypeXidCriticalError;
    data->eventData = xid;
    data->gpuInstanceId = NVML_NO_INSTANCE_ID;
    data->computeInstanceId = NVML_NO_INSTANCE_ID;
    return NVML_SUCCESS;
  });
}

#ifndef KRAKEN_NVML_REPLAY_LEGACY
nvmlReturn_t GpmSampleInto(nvmlDevice_t device, int64_t gpu_instance, nvmlGpmSample_t sample) {
  return OnGpu(device, [&](ReplayState& s, const DeviceFacts& d, uint32_t index) -> nvmlReturn_t {
    if (!d.gpm_supported.ok() || d.gpm_supported.value != 1) return NVML_ERROR_NOT_SUPPORTED;
    GpmSampleSlot* slot = s.FindGpmSample(sample);
    if (slot == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (gpu_instance >= 0) {
      bool found = false;
      for (const MigFacts& m : d.migs)
        found = found || (m.gpu_instance_id.ok() && m.gpu_instance_id.value == gpu_instance);
      if (!found) return NVML_ERROR_NOT_FOUND;
    }
    slot->taken = true;
    slot->device = index;
    slot->gpu_instance = gpu_instance;
    slot->pass = s.pass();
    return NVML_SUCCESS;
  });
}
#endif

}  // namespace
}  // namespace kraken::nvml::replay

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

template <typename Get>
nvmlReturn_t MigId(nvmlDevice_t device, unsigned int* id, Get get) {
  if (id == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* h = s.Resolve(device);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (h->mig < 0) return NVML_ERROR_NOT_SUPPORTED;  // not a MIG device handle
    return Give(get(s.capture().devices[h->device].migs[static_cast<size_t>(h->mig)]), id);
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

// ---- Per-pass values ----

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t* utilization) {
  if (utilization == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState& s, const DeviceFacts&, uint32_t index) {
    if (index == 0) s.AdvancePass();  // the frame rule: one pass per call on device 0
    const auto& u = s.CurrentFrame().devices[index].utilization;
    if (!u.ok()) return u.rc;
    utilization->gpu = u.value.gpu_pct;
    utilization->memory = u.value.mem_pct;
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Memory(device, "nvmlDeviceGetMemoryInfo", [&](const MemoryInfo& m) {
    memory->total = m.total;
    memory->free = m.free;
    memory->used = m.used + m.reserved;  // v1's used counts the reserved memory too
  });
}

#define KRAKEN_FRAME_VALUE(function, field, type)                                                     \
  KRAKEN_NVML_EXPORT nvmlReturn_t function(nvmlDevice_t device, type* out) {                          \
    return OnGpuFrame(device, [&](ReplayState&, const DeviceFrame& f) { return Give(f.field, out); }); \
  }
KRAKEN_FRAME_VALUE(nvmlDeviceGetPowerUsage, power_mw, unsigned int)
KRAKEN_FRAME_VALUE(nvmlDeviceGetTotalEnergyConsumption, energy_mj, unsigned long long)
#undef KRAKEN_FRAME_VALUE

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int* clock) {
  return OnGpuFrame(device, [&](ReplayState&, const DeviceFrame& f) -> nvmlReturn_t {
    if (type == NVML_CLOCK_SM) return Give(f.sm_clock_mhz, clock);
    if (type == NVML_CLOCK_MEM) return Give(f.mem_clock_mhz, clock);
    return type >= 0 && type <= 3 ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* celsius) {
  return OnGpuFrame(device, [&](ReplayState&, const DeviceFrame& f) -> nvmlReturn_t {
    if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    return Give(f.gpu_temp_c, celsius);
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, int counter, unsigned int* kbps) {
  return OnGpuFrame(device, [&](ReplayState&, const DeviceFrame& f) -> nvmlReturn_t {
    if (counter == NVML_PCIE_UTIL_TX_BYTES) return Give(f.pcie_tx_kbps, kbps);
    if (counter == NVML_PCIE_UTIL_RX_BYTES) return Give(f.pcie_rx_kbps, kbps);
    return NVML_ERROR_INVALID_ARGUMENT;
  });
}

template <typename Pick>
nvmlReturn_t EngineUtilization(nvmlDevice_t device, unsigned int* pct, unsigned int* period_us, Pick pick) {
  if (period_us == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpuFrame(device, [&](ReplayState& s, const DeviceFrame& f) {
    nvmlReturn_t rc = Give(pick(f), pct);
    if (rc == NVML_SUCCESS) *period_us = static_cast<unsigned int>(std::min<uint64_t>(s.capture().interval_us, ~0u));
    return rc;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int* pct,
                                                                 unsigned int* period_us) {
  return EngineUtilization(device, pct, period_us, [](const DeviceFrame& f) { return f.encoder_pct; });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int* pct,
                                                                 unsigned int* period_us) {
  return EngineUtilization(device, pct, period_us, [](const DeviceFrame& f) { return f.decoder_pct; });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t* values) {
  if (count < 0 || (count > 0 && values == nullptr)) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpuFrame(device, [&](ReplayState& s, const DeviceFrame& f) {
    long long now = static_cast<long long>(s.AbsoluteTime(s.CurrentFrame().time_us));
    for (int i = 0; i < count; ++i) {
      nvmlFieldValue_t& v = values[i];
      v.timestamp = now;
      v.latencyUsec = 0;
      v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      for (const FieldAnswer& field : f.fields) {
        if (field.field_id != v.fieldId || field.scope_id != v.scopeId) continue;
        v.nvmlReturn = field.rc;
        v.valueType = field.value_type;
        std::memcpy(&v.value, &field.bits, sizeof(v.value));
        break;
      }
    }
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int* count,
                                                                      nvmlProcessInfo_v1_t* infos) {
  return Processes(device, count, infos);
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                                                 nvmlProcessUtilizationSample_t* samples,
                                                                 unsigned int* count, unsigned long long last_seen) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpuFrame(device, [&](ReplayState& s, const DeviceFrame& f) -> nvmlReturn_t {
    const auto& answer = f.process_utilization;
    if (answer.rc != NVML_SUCCESS && answer.rc != NVML_ERROR_NOT_FOUND) return answer.rc;
    unsigned int fresh = 0;
    for (const ProcessUtilization& p : answer.value) fresh += s.AbsoluteTime(p.time_us) > last_seen ? 1 : 0;
    if (fresh == 0) {
      *count = 0;
      return NVML_ERROR_NOT_FOUND;  // nothing newer than last_seen
    }
    if (samples == nullptr || *count < fresh) {
      *count = fresh;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    unsigned int n = 0;
    for (const ProcessUtilization& p : answer.value) {
      uint64_t when = s.AbsoluteTime(p.time_us);
      if (when <= last_seen) continue;
      samples[n++] = nvmlProcessUtilizationSample_t{p.pid, when, p.sm_pct, p.mem_pct, p.enc_pct, p.dec_pct};
    }
    *count = n;
    return NVML_SUCCESS;
  });
}

// ---- XID events ----

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) {
    EventSetSlot* slot = s.NewEventSet();
    if (slot == nullptr) return NVML_ERROR_INSUFFICIENT_RESOURCES;
    *set = reinterpret_cast<nvmlEventSet_t>(slot);
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types,
                                                          nvmlEventSet_t set) {
  return OnGpu(device, [&](ReplayState& s, const DeviceFacts&, uint32_t index) -> nvmlReturn_t {
    EventSetSlot* slot = s.FindEventSet(set);
    if (slot == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if ((types & nvmlEventTypeXidCriticalError) == 0) return NVML_ERROR_NOT_SUPPORTED;  // the only kind replayed
    slot->registered[index] = true;
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int) {
  return WaitEvent(set, data);
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  return Locked([&](ReplayState& s) { return s.FreeEventSet(set) ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT; });
}

#ifndef KRAKEN_NVML_REPLAY_LEGACY
// ---- Versioned entry points and GPM: what a current driver (12.x, 13.x) adds ----

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlInit_v2() { return nvmlInit(); }
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) {
  return nvmlSystemGetCudaDriverVersion(version);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) { return nvmlDeviceGetCount(count); }
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  return nvmlDeviceGetHandleByIndex(index, device);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return DevicePci(device, pci, false);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  return DevicePci(device, pci, false);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t* attributes) {
  return AttributesOf(device, attributes);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                                     nvmlPciInfo_t* pci) {
  return RemotePci(device, link, pci, false);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
  if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  return Memory(device, "nvmlDeviceGetMemoryInfo_v2", [&](const MemoryInfo& m) {
    memory->total = m.total;
    memory->reserved = m.reserved;
    memory->free = m.free;
    memory->used = m.used;
  });
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t* temperature) {
  if (temperature == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (temperature->version != nvmlTemperature_v1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  return OnGpuFrame(device, [&](ReplayState& s, const DeviceFrame& f) -> nvmlReturn_t {
    if (s.VersionMismatch("nvmlDeviceGetTemperatureV")) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (temperature->sensorType != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    if (!f.gpu_temp_c.ok()) return f.gpu_temp_c.rc;
    temperature->temperature = static_cast<int>(f.gpu_temp_c.value);
    return NVML_SUCCESS;
  });
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int* count,
                                                                         nvmlProcessInfo_t* infos) {
  return Processes(device, count, infos);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* count,
                                                                         nvmlProcessInfo_t* infos) {
  return Processes(device, count, infos);
}
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int) {
  return WaitEvent(set, data);
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t* support) {
  if (support == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (support->version != NVML_GPM_SUPPORT_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) {
    return Give(d.gpm_supported, &support->isSupportedDevice);
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t* sample) {
  if (sample == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) {
    GpmSampleSlot* slot = s.NewGpmSample();
    if (slot == nullptr) return NVML_ERROR_MEMORY;
    *sample = reinterpret_cast<nvmlGpmSample_t>(slot);
    return NVML_SUCCESS;
  });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
  return Locked([&](ReplayState& s) { return s.FreeGpmSample(sample) ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT; });
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample) {
  return GpmSampleInto(device, -1, sample);
}

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpu_instance,
                                                     nvmlGpmSample_t sample) {
  return GpmSampleInto(device, gpu_instance, sample);
}

// The metrics between two samples are the ones the capture has for the frame of the later.
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t* get) {
  if (get == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (get->version != NVML_GPM_METRICS_GET_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  if (get->numMetrics > NVML_GPM_METRIC_MAX) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    GpmSampleSlot* first = s.FindGpmSample(get->sample1);
    GpmSampleSlot* second = s.FindGpmSample(get->sample2);
    if (first == nullptr || second == nullptr || !first->taken || !second->taken) return NVML_ERROR_INVALID_ARGUMENT;
    if (first->device != second->device || first->gpu_instance != second->gpu_instance)
      return NVML_ERROR_INVALID_ARGUMENT;
    const DeviceFrame& frame = s.FrameOfPass(second->pass).devices[second->device];
    const Answer<std::vector<GpmValue>>* gpm = &frame.gpm;
    if (second->gpu_instance >= 0) {
      auto it = frame.migs.find(static_cast<uint32_t>(second->gpu_instance));
      if (it == frame.migs.end()) return NVML_ERROR_NOT_SUPPORTED;
      gpm = &it->second.gpm;
    }
    if (!gpm->ok()) return gpm->rc;
    for (unsigned int i = 0; i < get->numMetrics; ++i) {
      nvmlGpmMetric_t& m = get->metrics[i];
      m.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      m.value = 0;
      m.metricInfo = {nullptr, nullptr, nullptr};
      for (const GpmValue& v : gpm->value)
        if (v.metric_id == m.metricId) {
          m.nvmlReturn = v.rc;
          m.value = v.value;
        }
    }
    return NVML_SUCCESS;
  });
}
#endif  // KRAKEN_NVML_REPLAY_LEGACY
