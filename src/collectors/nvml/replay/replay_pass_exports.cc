// libkraken_nvml_replay.so, part 2: the per-pass values (one frame per pass), XID events,
// and the versioned entry points and GPM that a current driver adds.
#include "collectors/nvml/replay/replay_helpers.h"

using namespace kraken::nvml;
using namespace kraken::nvml::replay;

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

namespace {

// The driver keeps process samples in a buffer and answers those newer than last_seen
// (nvmlDeviceGetProcessUtilization), so a caller that reads every second loses nothing.
// The replay looks back over the frames of this many passes, read or not. A caller that
// reads every pass gets what the current frame alone gives: the earlier frames' samples are
// not newer than the last one it saw.
constexpr int64_t kReplaySampleBufferPasses = 64;

// Calls `each(pass, sample)` for the samples of GPU `device` newer than `last_seen`, oldest
// pass first.
template <typename Each>
void ForEachBufferedSample(const ReplayState& s, uint32_t device, unsigned long long last_seen, Each each) {
  int64_t newest = std::max<int64_t>(0, s.pass());  // before the first pass: frame 0, as CurrentFrame
  for (int64_t pass = std::max<int64_t>(0, newest - kReplaySampleBufferPasses + 1); pass <= newest; ++pass) {
    const auto& answer = s.FrameOfPass(pass).devices[device].process_utilization;
    if (answer.rc != NVML_SUCCESS) continue;
    for (const ProcessUtilization& p : answer.value)
      if (s.AbsoluteTime(pass, p.time_us) > last_seen) each(pass, p);
  }
}

}  // namespace

KRAKEN_NVML_EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                                                 nvmlProcessUtilizationSample_t* samples,
                                                                 unsigned int* count, unsigned long long last_seen) {
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return OnGpu(device, [&](ReplayState& s, const DeviceFacts&, uint32_t index) -> nvmlReturn_t {
    const auto& answer = s.CurrentFrame().devices[index].process_utilization;
    if (answer.rc != NVML_SUCCESS && answer.rc != NVML_ERROR_NOT_FOUND) return answer.rc;
    unsigned int fresh = 0;
    ForEachBufferedSample(s, index, last_seen, [&](int64_t, const ProcessUtilization&) { ++fresh; });
    if (fresh == 0) {
      *count = 0;
      return NVML_ERROR_NOT_FOUND;  // nothing newer than last_seen
    }
    if (samples == nullptr || *count < fresh) {
      *count = fresh;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    unsigned int n = 0;
    ForEachBufferedSample(s, index, last_seen, [&](int64_t pass, const ProcessUtilization& p) {
      samples[n++] = nvmlProcessUtilizationSample_t{s.MapPid(p.pid), s.AbsoluteTime(pass, p.time_us), p.sm_pct,
                                                    p.mem_pct,        p.enc_pct,                      p.dec_pct};
    });
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
