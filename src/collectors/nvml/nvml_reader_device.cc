// One GPU's part of a pass: the cheap per-pass calls, the slow calls, the process lists
// and GPM (NvmlReader::ReadFrame decides which are due).
#include <cstring>

#include "collectors/nvml/nvml_reader.h"
#include "collectors/nvml/nvml_reader_internal.h"

namespace kraken::nvml {
namespace {

using reader_detail::Ask;

// Process lists beyond this are cut (a GPU runs far fewer processes).
constexpr unsigned int kMaxProcesses = 4096;

}  // namespace

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
  AskFields(h, kHealthFieldRequests, gpu.health_fields, std::span(f.fields).subspan(kFieldRequests.size()));
}

void NvmlReader::AskFields(nvmlDevice_t h, std::span<const FieldRequest> requests, std::span<nvmlFieldValue_t> buffer,
                           std::span<FieldAnswer> out) {
  for (size_t i = 0; i < requests.size(); ++i) {
    buffer[i] = nvmlFieldValue_t{};
    buffer[i].fieldId = requests[i].field_id;
    buffer[i].scopeId = requests[i].scope_id;
  }
  nvmlReturn_t rc = api_.DeviceGetFieldValues(h, static_cast<int>(requests.size()), buffer.data());
  for (size_t i = 0; i < requests.size(); ++i) {
    FieldAnswer& answer = out[i];
    const nvmlFieldValue_t& in = buffer[i];
    answer.field_id = requests[i].field_id;
    answer.scope_id = requests[i].scope_id;
    answer.rc = rc != NVML_SUCCESS ? rc : in.nvmlReturn;
    answer.value_type = in.valueType;
    answer.bits = 0;
    answer.timestamp_us = in.timestamp;
    if (answer.rc == NVML_SUCCESS) std::memcpy(&answer.bits, &in.value, sizeof(answer.bits));
  }
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

  // Room for the health answers too, which only a slow pass refreshes (ReadSlow); until the
  // first one they are NOT_SUPPORTED (no value).
  if (f.fields.size() != kFieldRequests.size() + kHealthFieldRequests.size()) {
    f.fields.assign(kFieldRequests.size() + kHealthFieldRequests.size(), FieldAnswer{});
    for (size_t i = 0; i < kHealthFieldRequests.size(); ++i) {
      f.fields[kFieldRequests.size() + i].field_id = kHealthFieldRequests[i].field_id;
      f.fields[kFieldRequests.size() + i].scope_id = kHealthFieldRequests[i].scope_id;
    }
  }
  AskFields(h, kFieldRequests, gpu.fields, std::span(f.fields).first(kFieldRequests.size()));
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

// Read on the slow cadence only (~2.4 ms per H100 and call, NOT_FOUND when no process ran).
// Nothing is lost between reads: the driver keeps its samples in a buffer, and
// lastSeenTimeStamp asks for those newer than the previous read ("Set lastSeenTimeStamp to
// a timeStamp retrieved from a previous query to read utilization since the previous
// query"; 0 reads "all the samples maintained by the driver's internal sample buffer":
// nvml.h / NVML API Reference, nvmlDeviceGetProcessUtilization and
// nvmlDeviceGetProcessesUtilizationInfo). The reference does not give the buffer's depth;
// users report it holds far more than a second of samples (4096 in a KSysGuard NVML plugin
// review, github.com/zvova7890/ksysguard6/pull/18), against a driver sample period of
// 1/6 s to 1 s (nvmlUtilization_t). A slower read costs only latency: it answers every
// sample taken since the previous read, several per process (~200 ms apart on an H100),
// which the sampler averages per pid.
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

}  // namespace kraken::nvml
