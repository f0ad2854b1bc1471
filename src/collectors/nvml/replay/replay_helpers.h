// Shared by the replay library's exported functions: locking, handle resolution, and
// filling NVML's structs from a capture's answers. Every helper checks pointers and
// handles and answers an error code instead of crashing.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "collectors/nvml/replay/replay_state.h"

#define KRAKEN_NVML_EXPORT extern "C" __attribute__((visibility("default")))

// Defined in replay_system_exports.cc; the versioned names in replay_pass_exports.cc answer
// the same.
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlInit();
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* version);
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int* count);
KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device);

namespace kraken::nvml::replay {

using Lock = std::lock_guard<std::mutex>;

template <typename Body>
inline nvmlReturn_t Locked(Body body) {
  ReplayState& s = ReplayState::Get();
  Lock lock(s.mutex());
  if (!s.initialized()) return NVML_ERROR_UNINITIALIZED;
  return body(s);
}

// A query on a GPU handle (a MIG device handle answers NOT_SUPPORTED).
template <typename Body>
inline nvmlReturn_t OnGpu(nvmlDevice_t handle, Body body) {
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* h = s.Resolve(handle);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (h->mig >= 0) return NVML_ERROR_NOT_SUPPORTED;
    return body(s, s.capture().devices[h->device], h->device);
  });
}

template <typename Body>
inline nvmlReturn_t OnGpuFrame(nvmlDevice_t handle, Body body) {
  return OnGpu(handle, [&](ReplayState& s, const DeviceFacts&, uint32_t device) {
    return body(s, s.CurrentFrame().devices[device]);
  });
}

template <typename T, typename Out>
inline nvmlReturn_t Give(const Answer<T>& answer, Out* out) {
  if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!answer.ok()) return answer.rc;
  *out = static_cast<Out>(answer.value);
  return NVML_SUCCESS;
}

inline nvmlReturn_t CopyText(const std::string& text, char* buffer, unsigned int length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (text.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return NVML_SUCCESS;
}

inline nvmlReturn_t GiveText(const Answer<std::string>& answer, char* buffer, unsigned int length) {
  if (buffer == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!answer.ok()) return answer.rc;
  return CopyText(answer.value, buffer, length);
}

inline void FillAttributes(const Attributes& a, nvmlDeviceAttributes_t* out) {
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
inline void FillPci(const PciInfo& p, nvmlPciInfo_t* out, bool legacy) {
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

inline nvmlReturn_t DevicePci(nvmlDevice_t device, nvmlPciInfo_t* pci, bool legacy) {
  if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState&, const DeviceFacts& d, uint32_t) {
    if (!d.pci.ok()) return d.pci.rc;
    FillPci(d.pci.value, pci, legacy);
    return NVML_SUCCESS;
  });
}

inline nvmlReturn_t AttributesOf(nvmlDevice_t device, nvmlDeviceAttributes_t* attributes) {
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
inline const Answer<MemoryInfo>* MemoryOf(ReplayState& s, const DeviceHandle& h) {
  const DeviceFrame& frame = s.CurrentFrame().devices[h.device];
  if (h.mig < 0) return &frame.memory;
  const MigFacts& mig = s.capture().devices[h.device].migs[static_cast<size_t>(h.mig)];
  if (!mig.gpu_instance_id.ok()) return nullptr;
  auto it = frame.migs.find(mig.gpu_instance_id.value);
  return it == frame.migs.end() ? nullptr : &it->second.memory;
}

template <typename Fill>
inline nvmlReturn_t Memory(nvmlDevice_t device, const char* function, Fill fill) {
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
inline nvmlReturn_t Processes(nvmlDevice_t device, unsigned int* count, Info* infos) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpuFrame(device, [&](ReplayState& s, const DeviceFrame& f) -> nvmlReturn_t {
    if (!f.processes.ok()) return f.processes.rc;
    const auto& list = f.processes.value;
    unsigned int needed = static_cast<unsigned int>(list.size());
    if (*count < needed || (infos == nullptr && needed > 0)) {
      *count = needed;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned int i = 0; i < needed; ++i) {
      std::memset(&infos[i], 0, sizeof(Info));
      infos[i].pid = s.MapPid(list[i].pid);
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

inline nvmlReturn_t RemotePci(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t* pci, bool legacy) {
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

inline nvmlReturn_t WaitEvent(nvmlEventSet_t set, nvmlEventData_t* data) {
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

inline nvmlReturn_t GpmSampleInto(nvmlDevice_t device, int64_t gpu_instance, nvmlGpmSample_t sample) {
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

template <typename Get>
inline nvmlReturn_t MigId(nvmlDevice_t device, unsigned int* id, Get get) {
  if (id == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return Locked([&](ReplayState& s) -> nvmlReturn_t {
    const DeviceHandle* h = s.Resolve(device);
    if (h == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (h->mig < 0) return NVML_ERROR_NOT_SUPPORTED;  // not a MIG device handle
    return Give(get(s.capture().devices[h->device].migs[static_cast<size_t>(h->mig)]), id);
  });
}

template <typename Pick>
inline nvmlReturn_t EngineUtilization(nvmlDevice_t device, unsigned int* pct, unsigned int* period_us, Pick pick) {
  if (period_us == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpuFrame(device, [&](ReplayState& s, const DeviceFrame& f) {
    nvmlReturn_t rc = Give(pick(f), pct);
    if (rc == NVML_SUCCESS) *period_us = static_cast<unsigned int>(std::min<uint64_t>(s.capture().interval_us, ~0u));
    return rc;
  });
}

}  // namespace kraken::nvml::replay
