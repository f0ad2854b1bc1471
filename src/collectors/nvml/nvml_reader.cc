#include "collectors/nvml/nvml_reader.h"

#include <cstring>
#include <string>

#include "collectors/nvml/nvml_return_codes.h"

namespace kraken::nvml {
namespace {

// CPUs the affinity mask can name: 64 words of 64 bits.
constexpr unsigned int kAffinityWords = 64;
// XID events taken per pass at most, so a flood cannot stall the sampler.
constexpr int kMaxEventsPerPass = 64;
// Process lists beyond this are cut (a GPU runs far fewer processes).
constexpr unsigned int kMaxProcesses = 4096;

template <typename T, typename Call>
Answer<T> Ask(Call call) {
  Answer<T> answer;
  T value{};
  answer.rc = call(&value);
  if (answer.ok()) answer.value = value;
  return answer;
}

Answer<std::string> AskText(NvmlApi& api, nvmlReturn_t (NvmlApi::*fn)(nvmlDevice_t, char*, unsigned int),
                            nvmlDevice_t handle) {
  char buffer[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  Answer<std::string> answer;
  answer.rc = (api.*fn)(handle, buffer, sizeof(buffer));
  buffer[sizeof(buffer) - 1] = '\0';
  if (answer.ok()) answer.value = buffer;
  return answer;
}

Answer<Attributes> AskAttributes(NvmlApi& api, nvmlDevice_t handle) {
  nvmlDeviceAttributes_t raw{};
  Answer<Attributes> answer;
  answer.rc = api.DeviceGetAttributes(handle, &raw);
  if (answer.ok())
    answer.value = Attributes{raw.multiprocessorCount, raw.sharedCopyEngineCount, raw.sharedDecoderCount,
                              raw.sharedEncoderCount,  raw.sharedJpegCount,       raw.sharedOfaCount,
                              raw.gpuInstanceSliceCount, raw.computeInstanceSliceCount, raw.memorySizeMB};
  return answer;
}

std::string BusId(const nvmlPciInfo_t& pci) {
  char id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE + 1] = {};
  std::memcpy(id, pci.busId, sizeof(pci.busId));
  if (id[0] != '\0') return id;
  // Only the v1 call answered: rebuild the full form from the numbers.
  char full[40];
  std::snprintf(full, sizeof(full), "%08X:%02X:%02X.0", pci.domain, pci.bus & 0xFF, pci.device & 0xFF);
  return full;
}

Status InitError(nvmlReturn_t rc, const std::string& diagnostic) {
  std::string message = "nvmlInit failed: " + std::string(ReturnCodeDescription(rc)) + " (" +
                        std::string(ReturnCodeName(rc)) + ")";
  if (!diagnostic.empty()) message += ": " + diagnostic;
  if (rc == NVML_ERROR_DRIVER_NOT_LOADED || rc == NVML_ERROR_LIBRARY_NOT_FOUND) return NotFound(message);
  if (!diagnostic.empty()) return InvalidInput(message);
  return Status(StatusCode::kIoError, message);
}

}  // namespace

NvmlReader::~NvmlReader() {
  if (!initialized_) return;
  for (Gpu& gpu : gpus_) {
    FreeGpm(gpu.gpm);
    for (GpuInstance& gi : gpu.instances) FreeGpm(gi.gpm);
  }
  if (events_ != nullptr) api_.EventSetFree(events_);
  api_.Shutdown();
}

void NvmlReader::FreeGpm(GpmState& state) {
  for (nvmlGpmSample_t& sample : state.samples) {
    if (sample != nullptr) api_.GpmSampleFree(sample);
    sample = nullptr;
  }
}

Status NvmlReader::Open() {
  nvmlReturn_t rc = api_.Init();
  if (rc != NVML_SUCCESS) return InitError(rc, api_.InitDiagnostic());
  initialized_ = true;

  char text[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  system_.driver_version.rc = api_.SystemGetDriverVersion(text, sizeof(text));
  if (system_.driver_version.ok()) system_.driver_version.value = std::string(text, strnlen(text, sizeof(text)));
  std::memset(text, 0, sizeof(text));
  system_.nvml_version.rc = api_.SystemGetNvmlVersion(text, sizeof(text));
  if (system_.nvml_version.ok()) system_.nvml_version.value = std::string(text, strnlen(text, sizeof(text)));
  system_.cuda_driver_version = Ask<int32_t>([&](int32_t* v) { return api_.SystemGetCudaDriverVersion(v); });

  unsigned int count = 0;
  rc = api_.DeviceGetCount(&count);
  if (rc != NVML_SUCCESS)
    return Status(StatusCode::kIoError, "nvmlDeviceGetCount failed: " + std::string(ReturnCodeDescription(rc)));
  for (unsigned int i = 0; i < count && i < 1024; ++i) {
    nvmlDevice_t handle = nullptr;
    // A GPU kraken may not talk to (NO_PERMISSION, GPU_IS_LOST) is left out.
    if (api_.DeviceGetHandleByIndex(i, &handle) != NVML_SUCCESS || handle == nullptr) continue;
    Gpu& gpu = gpus_.emplace_back();
    gpu.handle = handle;
    ReadFacts(handle, devices_.emplace_back());
  }
  system_.device_count.Set(static_cast<uint32_t>(devices_.size()));

  for (size_t d = 0; d < devices_.size(); ++d) {
    Gpu& gpu = gpus_[d];
    const DeviceFacts& facts = devices_[d];
    // One entry per GPU instance, read through its first MIG device (memory is shared by
    // the compute instances of a GPU instance, and GPM samples a GPU instance).
    for (const MigFacts& mig : facts.migs) {
      if (!mig.gpu_instance_id.ok()) continue;
      bool known = false;
      for (const GpuInstance& gi : gpu.instances) known = known || gi.id == mig.gpu_instance_id.value;
      if (known) continue;
      nvmlDevice_t handle = nullptr;
      if (api_.DeviceGetMigDeviceHandleByIndex(gpu.handle, mig.index, &handle) != NVML_SUCCESS) continue;
      gpu.instances.push_back(GpuInstance{mig.gpu_instance_id.value, handle, {}});
    }
    if (facts.gpm_supported.ok() && facts.gpm_supported.value == 1) {
      auto alloc = [&](GpmState& state) {
        for (nvmlGpmSample_t& sample : state.samples)
          if (api_.GpmSampleAlloc(&sample) != NVML_SUCCESS) sample = nullptr;
      };
      alloc(gpu.gpm);
      for (GpuInstance& gi : gpu.instances) alloc(gi.gpm);
    }
  }
  for (uint32_t a = 0; a < devices_.size(); ++a)
    for (uint32_t b = a + 1; b < devices_.size(); ++b) {
      TopologyLink& link = topology_.emplace_back();
      link.a = a;
      link.b = b;
      link.common_ancestor = Ask<int32_t>(
          [&](int32_t* level) { return api_.DeviceGetTopologyCommonAncestor(gpus_[a].handle, gpus_[b].handle, level); });
    }
  // XID critical errors arrive as events; a set that no GPU accepts is dropped.
  if (api_.EventSetCreate(&events_) == NVML_SUCCESS) {
    bool any = false;
    for (const Gpu& gpu : gpus_)
      any = api_.DeviceRegisterEvents(gpu.handle, nvmlEventTypeXidCriticalError, events_) == NVML_SUCCESS || any;
    if (!any) {
      api_.EventSetFree(events_);
      events_ = nullptr;
    }
  } else {
    events_ = nullptr;
  }
  return Status::Ok();
}

void NvmlReader::ReadFacts(nvmlDevice_t h, DeviceFacts& f) {
  NvmlApi& api = api_;
  f.name = AskText(api, &NvmlApi::DeviceGetName, h);
  f.uuid = AskText(api, &NvmlApi::DeviceGetUuid, h);
  nvmlPciInfo_t pci{};
  f.pci.rc = api.DeviceGetPciInfo(h, &pci);
  if (f.pci.ok()) f.pci.value = PciInfo{BusId(pci), pci.domain, pci.bus, pci.device, pci.pciDeviceId, pci.pciSubSystemId};
  f.minor_number = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMinorNumber(h, v); });
  f.architecture = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetArchitecture(h, v); });
  int major = 0, minor = 0;
  f.compute_capability.rc = api.DeviceGetCudaComputeCapability(h, &major, &minor);
  if (f.compute_capability.ok()) f.compute_capability.value = {major, minor};
  f.num_gpu_cores = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetNumGpuCores(h, v); });
  f.attributes = AskAttributes(api, h);
  f.max_sm_clock_mhz = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxClockInfo(h, NVML_CLOCK_SM, v); });
  f.max_mem_clock_mhz = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxClockInfo(h, NVML_CLOCK_MEM, v); });
  f.power_limit_mw = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetEnforcedPowerLimit(h, v); });
  f.pcie_max_generation = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxPcieLinkGeneration(h, v); });
  f.pcie_max_width = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxPcieLinkWidth(h, v); });
  unsigned int current = 0, pending = 0;
  f.mig_mode.rc = api.DeviceGetMigMode(h, &current, &pending);
  if (f.mig_mode.ok()) f.mig_mode.value = {current, pending};
  nvmlGpmSupport_t support{NVML_GPM_SUPPORT_VERSION, 0};
  f.gpm_supported.rc = api.GpmQueryDeviceSupport(h, &support);
  if (f.gpm_supported.ok()) f.gpm_supported.value = support.isSupportedDevice;
  f.numa_node = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetNumaNodeId(h, v); });

  unsigned long mask[kAffinityWords] = {};
  f.cpu_affinity.rc = api.DeviceGetCpuAffinity(h, kAffinityWords, mask);
  if (f.cpu_affinity.ok()) {
    constexpr uint32_t kBits = sizeof(unsigned long) * 8;
    for (uint32_t cpu = 0; cpu < kAffinityWords * kBits; ++cpu)
      if ((mask[cpu / kBits] >> (cpu % kBits)) & 1UL) f.cpu_affinity.value.push_back(cpu);
  }
  // Links are numbered from 0; the first that does not answer ends the list.
  for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    int active = 0;
    nvmlReturn_t rc = api.DeviceGetNvLinkState(h, link, &active);
    if (rc != NVML_SUCCESS) break;
    NvLinkFacts& facts = f.nvlinks.emplace_back();
    facts.state.Set(static_cast<uint32_t>(active));
    if (active != NVML_FEATURE_ENABLED) continue;
    nvmlPciInfo_t remote{};
    facts.remote.rc = api.DeviceGetNvLinkRemotePciInfo(h, link, &remote);
    if (facts.remote.ok()) facts.remote.value = BusId(remote);
  }

  if (!f.mig_mode.ok() || f.mig_mode.value.first != NVML_DEVICE_MIG_ENABLE) return;
  f.max_mig_devices = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxMigDeviceCount(h, v); });
  if (!f.max_mig_devices.ok()) return;
  for (unsigned int i = 0; i < f.max_mig_devices.value && i < 64; ++i) {
    nvmlDevice_t mig_handle = nullptr;
    if (api.DeviceGetMigDeviceHandleByIndex(h, i, &mig_handle) != NVML_SUCCESS) continue;  // an empty slot
    MigFacts& m = f.migs.emplace_back();
    m.index = i;
    m.gpu_instance_id = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetGpuInstanceId(mig_handle, v); });
    m.compute_instance_id = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetComputeInstanceId(mig_handle, v); });
    m.name = AskText(api, &NvmlApi::DeviceGetName, mig_handle);
    m.uuid = AskText(api, &NvmlApi::DeviceGetUuid, mig_handle);
    m.attributes = AskAttributes(api, mig_handle);
  }
}

Answer<MemoryInfo> NvmlReader::Memory(nvmlDevice_t handle, bool& v1) {
  Answer<MemoryInfo> answer;
  if (!v1) {
    nvmlMemory_v2_t m{};
    m.version = nvmlMemory_v2;
    answer.rc = api_.DeviceGetMemoryInfoV2(handle, &m);
    if (answer.ok()) {
      answer.value = MemoryInfo{m.total, m.reserved, m.free, m.used};
      return answer;
    }
    // An older driver: the symbol is missing or it does not know the struct version.
    if (answer.rc != NVML_ERROR_FUNCTION_NOT_FOUND && answer.rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) return answer;
    v1 = true;
  }
  nvmlMemory_t m{};
  answer.rc = api_.DeviceGetMemoryInfo(handle, &m);
  if (answer.ok()) answer.value = MemoryInfo{m.total, 0, m.free, m.used};
  return answer;
}

Answer<MemoryInfo> NvmlReader::ReadMemory(size_t device, int64_t gpu_instance) {
  if (device >= gpus_.size()) return {NVML_ERROR_INVALID_ARGUMENT, {}};
  Gpu& gpu = gpus_[device];
  if (gpu_instance < 0) return Memory(gpu.handle, gpu.memory_v1);
  for (const GpuInstance& gi : gpu.instances)
    if (gi.id == gpu_instance) return Memory(gi.handle, gpu.memory_v1);
  return {NVML_ERROR_NOT_FOUND, {}};
}

void NvmlReader::ReadFrame(Frame& frame, std::span<const uint8_t> read, std::span<const uint8_t> slow) {
  frame.devices.resize(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d) {
    if (read.empty() || (d < read.size() && read[d] != 0)) {
      bool slow_due = slow.empty() || (d < slow.size() && slow[d] != 0);
      ReadDevice(gpus_[d], devices_[d], slow_due, frame.devices[d]);
    } else {
      frame.devices[d].xids.clear();
    }
  }
  // The costly calls come after every GPU's cheap ones, so that the cheap values of a pass
  // are read close together: process utilization (~2.4 ms on an H100) every pass, and the
  // slow calls when due. Between slow passes energy and PCIe keep their last answers.
  for (size_t d = 0; d < devices_.size(); ++d) {
    if (!read.empty() && (d >= read.size() || read[d] == 0)) continue;
    ReadProcessUtilization(gpus_[d], frame.devices[d]);
    if (frame.devices[d].slow_read) ReadSlow(gpus_[d], frame.devices[d]);
  }
  ReadXids(frame);
}

void NvmlReader::ReadSlow(Gpu& gpu, DeviceFrame& f) {
  nvmlDevice_t h = gpu.handle;
  f.energy_mj = Ask<uint64_t>([&](uint64_t* v) {
    unsigned long long mj = 0;
    nvmlReturn_t rc = api_.DeviceGetTotalEnergyConsumption(h, &mj);
    *v = mj;
    return rc;
  });
  f.pcie_tx_kbps =
      Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetPcieThroughput(h, NVML_PCIE_UTIL_TX_BYTES, v); });
  f.pcie_rx_kbps =
      Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetPcieThroughput(h, NVML_PCIE_UTIL_RX_BYTES, v); });
}

void NvmlReader::ReadDevice(Gpu& gpu, const DeviceFacts& facts, bool slow, DeviceFrame& f) {
  nvmlDevice_t h = gpu.handle;
  // First query of the GPU in every pass (the replay's frame rule).
  nvmlUtilization_t utilization{};
  f.utilization.rc = api_.DeviceGetUtilizationRates(h, &utilization);
  if (f.utilization.ok()) f.utilization.value = UtilizationRates{utilization.gpu, utilization.memory};
  f.memory = Memory(h, gpu.memory_v1);
  f.memory_v1 = gpu.memory_v1;
  f.power_mw = Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetPowerUsage(h, v); });
  f.sm_clock_mhz = Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetClockInfo(h, NVML_CLOCK_SM, v); });
  f.mem_clock_mhz = Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetClockInfo(h, NVML_CLOCK_MEM, v); });
  if (!gpu.temperature_v1) {
    nvmlTemperature_t t{nvmlTemperature_v1, NVML_TEMPERATURE_GPU, 0};
    nvmlReturn_t rc = api_.DeviceGetTemperatureV(h, &t);
    gpu.temperature_v1 = rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    f.gpu_temp_c.rc = rc;
    if (rc == NVML_SUCCESS) f.gpu_temp_c.value = static_cast<uint32_t>(t.temperature < 0 ? 0 : t.temperature);
  }
  if (gpu.temperature_v1)
    f.gpu_temp_c = Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetTemperature(h, NVML_TEMPERATURE_GPU, v); });
  unsigned int period_us = 0;
  f.encoder_pct = Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetEncoderUtilization(h, v, &period_us); });
  f.decoder_pct = Ask<uint32_t>([&](uint32_t* v) { return api_.DeviceGetDecoderUtilization(h, v, &period_us); });

  for (size_t i = 0; i < kFieldRequests.size(); ++i) {
    gpu.fields[i] = nvmlFieldValue_t{};
    gpu.fields[i].fieldId = kFieldRequests[i].field_id;
    gpu.fields[i].scopeId = kFieldRequests[i].scope_id;
  }
  nvmlReturn_t rc = api_.DeviceGetFieldValues(h, static_cast<int>(gpu.fields.size()), gpu.fields.data());
  f.fields.resize(kFieldRequests.size());
  for (size_t i = 0; i < kFieldRequests.size(); ++i) {
    FieldAnswer& out = f.fields[i];
    const nvmlFieldValue_t& in = gpu.fields[i];
    out.field_id = kFieldRequests[i].field_id;
    out.scope_id = kFieldRequests[i].scope_id;
    out.rc = rc != NVML_SUCCESS ? rc : in.nvmlReturn;
    out.value_type = in.valueType;
    out.bits = 0;
    out.timestamp_us = in.timestamp;
    if (out.rc == NVML_SUCCESS) std::memcpy(&out.bits, &in.value, sizeof(out.bits));
  }
  ReadProcesses(gpu, f);
  f.slow_read = slow;
  f.xids.clear();
  bool gpm = facts.gpm_supported.ok() && facts.gpm_supported.value == 1;
  if (gpm) {
    ReadGpm(h, -1, gpu.gpm, f.gpm);
  } else {
    f.gpm.rc = NVML_ERROR_NOT_SUPPORTED;
    f.gpm.value.clear();
  }
  for (GpuInstance& gi : gpu.instances) {
    MigFrame& mig = f.migs[gi.id];
    mig.memory = Memory(gi.handle, gpu.memory_v1);
    if (gpm) {
      ReadGpm(h, gi.id, gi.gpm, mig.gpm);
    } else {
      mig.gpm.rc = NVML_ERROR_NOT_SUPPORTED;
      mig.gpm.value.clear();
    }
  }
}

void NvmlReader::ReadProcesses(Gpu& gpu, DeviceFrame& f) {
  auto& list = f.processes.value;
  list.clear();
  if (gpu.processes.empty()) gpu.processes.resize(16);
  for (int attempt = 0; attempt < 3; ++attempt) {
    unsigned int count = static_cast<unsigned int>(gpu.processes.size());
    f.processes.rc = api_.DeviceGetComputeRunningProcesses(gpu.handle, &count, gpu.processes.data());
    if (f.processes.rc == NVML_ERROR_INSUFFICIENT_SIZE && count > gpu.processes.size() && count <= kMaxProcesses) {
      gpu.processes.resize(count + 8);  // processes may start between the two calls
      continue;
    }
    if (f.processes.rc != NVML_SUCCESS) return;
    for (unsigned int i = 0; i < count && i < gpu.processes.size(); ++i) {
      const nvmlProcessInfo_t& p = gpu.processes[i];
      list.push_back(ProcessAnswer{p.pid, p.usedGpuMemory, p.gpuInstanceId, p.computeInstanceId});
    }
    return;
  }
}

void NvmlReader::ReadProcessUtilization(Gpu& gpu, DeviceFrame& f) {
  auto& list = f.process_utilization.value;
  list.clear();
  if (gpu.samples.empty()) gpu.samples.resize(64);
  for (int attempt = 0; attempt < 3; ++attempt) {
    unsigned int count = static_cast<unsigned int>(gpu.samples.size());
    f.process_utilization.rc =
        api_.DeviceGetProcessUtilization(gpu.handle, gpu.samples.data(), &count, gpu.last_seen_us);
    if (f.process_utilization.rc == NVML_ERROR_INSUFFICIENT_SIZE && count > gpu.samples.size() &&
        count <= kMaxProcesses) {
      gpu.samples.resize(count + 8);
      continue;
    }
    if (f.process_utilization.rc != NVML_SUCCESS) return;
    for (unsigned int i = 0; i < count && i < gpu.samples.size(); ++i) {
      const nvmlProcessUtilizationSample_t& s = gpu.samples[i];
      list.push_back(ProcessUtilization{s.pid, s.timeStamp, s.smUtil, s.memUtil, s.encUtil, s.decUtil});
      if (s.timeStamp > gpu.last_seen_us) gpu.last_seen_us = s.timeStamp;
    }
    return;
  }
}

void NvmlReader::ReadGpm(nvmlDevice_t gpu, int64_t gpu_instance, GpmState& state,
                         Answer<std::vector<GpmValue>>& out) {
  out.value.clear();
  nvmlGpmSample_t current = state.samples[state.current];
  nvmlGpmSample_t previous = state.samples[1 - state.current];
  if (current == nullptr || previous == nullptr) {
    out.rc = NVML_ERROR_MEMORY;
    return;
  }
  out.rc = gpu_instance < 0 ? api_.GpmSampleGet(gpu, current)
                            : api_.GpmMigSampleGet(gpu, static_cast<unsigned int>(gpu_instance), current);
  if (out.rc != NVML_SUCCESS) {
    state.have_previous = false;
    return;
  }
  bool compare = state.have_previous;
  state.have_previous = true;
  state.current = 1 - state.current;  // this sample is the next pass's reference
  if (!compare) {
    out.rc = NVML_ERROR_NO_DATA;  // the first sample: nothing to compare with yet
    return;
  }
  nvmlGpmMetricsGet_t& get = metrics_get_;
  get.version = NVML_GPM_METRICS_GET_VERSION;
  get.numMetrics = static_cast<unsigned int>(kGpmMetrics.size());
  get.sample1 = previous;
  get.sample2 = current;
  for (size_t i = 0; i < kGpmMetrics.size(); ++i) {
    get.metrics[i] = nvmlGpmMetric_t{};
    get.metrics[i].metricId = kGpmMetrics[i];
  }
  out.rc = api_.GpmMetricsGet(&get);
  if (out.rc != NVML_SUCCESS) return;
  for (size_t i = 0; i < kGpmMetrics.size(); ++i)
    out.value.push_back(GpmValue{kGpmMetrics[i], get.metrics[i].nvmlReturn, get.metrics[i].value});
}

void NvmlReader::ReadXids(Frame& frame) {
  if (events_ == nullptr) return;
  for (int n = 0; n < kMaxEventsPerPass; ++n) {
    nvmlEventData_t data{};
    if (api_.EventSetWait(events_, &data, 0) != NVML_SUCCESS) return;  // TIMEOUT: none left
    if (data.eventType != nvmlEventTypeXidCriticalError) continue;
    for (size_t d = 0; d < gpus_.size(); ++d)
      if (gpus_[d].handle == data.device) frame.devices[d].xids.push_back(data.eventData);
  }
}

}  // namespace kraken::nvml
