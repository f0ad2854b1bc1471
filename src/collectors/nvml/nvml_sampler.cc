// NvmlSampler's sampling passes: the slow-read cadence, and each GPU's frame turned into
// the batch's entities and values. Enumeration (Open): nvml_sampler_devices.cc.
#include "collectors/nvml/nvml_sampler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "collectors/nvml/nvml_health_fields.h"
#include "collectors/nvml/process_utilization_mean.h"

namespace kraken::nvml {
namespace {

Metric GpmMetric(uint32_t id) {
  switch (id) {
    case NVML_GPM_METRIC_GRAPHICS_UTIL: return Metric::kGrEngineActiveRatio;
    case NVML_GPM_METRIC_SM_UTIL: return Metric::kSmActiveRatio;
    case NVML_GPM_METRIC_SM_OCCUPANCY: return Metric::kSmOccupancyRatio;
    case NVML_GPM_METRIC_ANY_TENSOR_UTIL: return Metric::kTensorActiveRatio;
    case NVML_GPM_METRIC_DRAM_BW_UTIL: return Metric::kDramActiveRatio;
    case NVML_GPM_METRIC_FP64_UTIL: return Metric::kFp64ActiveRatio;
    case NVML_GPM_METRIC_FP32_UTIL: return Metric::kFp32ActiveRatio;
    case NVML_GPM_METRIC_FP16_UTIL: return Metric::kFp16ActiveRatio;
    default: return Metric::kOther;
  }
}

// The next slot of `live` at `count`: reused, or taken from `spare`, or new.
template <typename T>
T& NextSlot(std::vector<T>& live, size_t count, std::vector<T>& spare) {
  if (count == live.size()) {
    if (spare.empty()) {
      live.emplace_back();
      // Room for every entry to be cut later, so that cutting never allocates.
      if (spare.capacity() < live.capacity()) spare.reserve(live.capacity());
      return live.back();
    }
    live.push_back(std::move(spare.back()));
    spare.pop_back();
  }
  return live[count];
}

// Cuts `live` to `count` entries, keeping the cut ones in `spare`.
template <typename T>
void CutTo(std::vector<T>& live, size_t count, std::vector<T>& spare) {
  while (live.size() > count) {
    spare.push_back(std::move(live.back()));
    live.pop_back();
  }
}

void ResetEntity(SeriesEntity& e) {
  e.gpu_index = -1;
  e.gpu_uuid.clear();
  e.gpu_name.clear();
  e.pci_bus_id.clear();
  e.gpu_instance_id = -1;
  e.mig_profile.clear();
  e.pid = -1;
  e.process_name.clear();
  e.hostname.clear();
  e.pod.clear();
  e.namespace_name.clear();
  e.container.clear();
  e.labels.clear();
}

// Writes one pass's entities and values into the batch slot by slot, so that their strings
// keep their buffers from pass to pass. The counts and spares are the sampler's.
class BatchWriter {
 public:
  BatchWriter(SampleBatch& batch, size_t& entity_count, size_t& value_count, std::vector<SeriesEntity>& spare_entities,
              std::vector<SampleBatch::Value>& spare_values)
      : batch_(batch),
        entity_count_(entity_count),
        value_count_(value_count),
        spare_entities_(spare_entities),
        spare_values_(spare_values) {}

  // A new entity on GPU `info`; returns its index in batch.entities.
  int32_t NewEntity(const DeviceInfo& info, int32_t gpu_instance, std::string_view profile, int64_t pid) {
    SeriesEntity& e = NextSlot(batch_.entities, entity_count_, spare_entities_);
    ResetEntity(e);
    e.gpu_index = info.index;
    e.gpu_uuid = info.uuid;
    e.gpu_name = info.name;
    e.pci_bus_id = info.pci_bus_id;
    e.gpu_instance_id = gpu_instance;
    e.mig_profile = profile;
    e.pid = pid;
    return static_cast<int32_t>(entity_count_++);
  }

  void Add(Metric metric, int32_t entity, double value, const char* source) {
    SampleBatch::Value& v = NextSlot(batch_.values, value_count_++, spare_values_);
    v.metric = metric;
    v.entity = entity;
    v.value = value;
    v.source_name = source;
  }

  SeriesEntity& entity(size_t index) { return batch_.entities[index]; }
  size_t entity_count() const { return entity_count_; }

 private:
  SampleBatch& batch_;
  size_t& entity_count_;
  size_t& value_count_;
  std::vector<SeriesEntity>& spare_entities_;
  std::vector<SampleBatch::Value>& spare_values_;
};

void AddMemoryValues(BatchWriter& out, const Answer<MemoryInfo>& m, bool v1, int32_t entity) {
  if (!m.ok()) return;
  out.Add(Metric::kFbTotalBytes, entity, static_cast<double>(m.value.total), "nvmlDeviceGetMemoryInfo.total");
  out.Add(Metric::kFbUsedBytes, entity, static_cast<double>(m.value.used), "nvmlDeviceGetMemoryInfo.used");
  out.Add(Metric::kFbFreeBytes, entity, static_cast<double>(m.value.free), "nvmlDeviceGetMemoryInfo.free");
  if (!v1) out.Add(Metric::kFbReservedBytes, entity, static_cast<double>(m.value.reserved), "nvmlDeviceGetMemoryInfo.reserved");
}

// The whole GPU's answers to the per-call queries: utilization, memory, power, energy,
// clocks, temperature, PCIe throughput, encoder and decoder.
void AddDeviceValues(BatchWriter& out, const DeviceFrame& f, int32_t gpu) {
  if (f.utilization.ok()) {
    out.Add(Metric::kGpuUtilPct, gpu, f.utilization.value.gpu_pct, "nvmlDeviceGetUtilizationRates.gpu");
    out.Add(Metric::kMemCopyUtilPct, gpu, f.utilization.value.mem_pct, "nvmlDeviceGetUtilizationRates.memory");
  }
  AddMemoryValues(out, f.memory, f.memory_v1, gpu);
  if (f.power_mw.ok()) out.Add(Metric::kPowerW, gpu, f.power_mw.value / 1000.0, "nvmlDeviceGetPowerUsage");
  // The slow reads: only in a pass that made them (in between, the frame holds old answers).
  if (f.slow_read && f.energy_mj.ok())
    out.Add(Metric::kEnergyMj, gpu, static_cast<double>(f.energy_mj.value), "nvmlDeviceGetTotalEnergyConsumption");
  if (f.sm_clock_mhz.ok()) out.Add(Metric::kSmClockMhz, gpu, f.sm_clock_mhz.value, "nvmlDeviceGetClockInfo.sm");
  if (f.mem_clock_mhz.ok()) out.Add(Metric::kMemClockMhz, gpu, f.mem_clock_mhz.value, "nvmlDeviceGetClockInfo.mem");
  if (f.gpu_temp_c.ok()) out.Add(Metric::kGpuTempC, gpu, f.gpu_temp_c.value, "nvmlDeviceGetTemperature");
  if (f.slow_read && f.pcie_tx_kbps.ok())
    out.Add(Metric::kPcieTxBytesPerS, gpu, f.pcie_tx_kbps.value * 1000.0, "nvmlDeviceGetPcieThroughput.tx");
  if (f.slow_read && f.pcie_rx_kbps.ok())
    out.Add(Metric::kPcieRxBytesPerS, gpu, f.pcie_rx_kbps.value * 1000.0, "nvmlDeviceGetPcieThroughput.rx");
  if (f.encoder_pct.ok()) out.Add(Metric::kEncoderUtilPct, gpu, f.encoder_pct.value, "nvmlDeviceGetEncoderUtilization");
  if (f.decoder_pct.ok()) out.Add(Metric::kDecoderUtilPct, gpu, f.decoder_pct.value, "nvmlDeviceGetDecoderUtilization");
}

// The NVLink throughput fields of one pass: KiB counters and when they were read (-1: not
// answered).
struct NvlinkCounters {
  double tx_kib = -1;
  double rx_kib = -1;
  int64_t time_us = -1;
};

// The field values that are values (ECC, memory temperature, PCIe replays; the health
// counters only in a pass that read them, `slow_read`); returns the NVLink counters, which
// need the previous pass to become rates.
NvlinkCounters AddFieldValues(BatchWriter& out, const std::vector<FieldAnswer>& fields, bool slow_read, int32_t gpu) {
  NvlinkCounters nvlink;
  for (const FieldAnswer& field : fields) {
    if (field.rc != NVML_SUCCESS) continue;
    double value = FieldNumber(field);
    switch (field.field_id) {
      case NVML_FI_DEV_ECC_SBE_VOL_TOTAL:
        out.Add(Metric::kEccCorrectedVolatileCount, gpu, value, "NVML_FI_DEV_ECC_SBE_VOL_TOTAL");
        break;
      case NVML_FI_DEV_ECC_DBE_VOL_TOTAL:
        out.Add(Metric::kEccUncorrectedVolatileCount, gpu, value, "NVML_FI_DEV_ECC_DBE_VOL_TOTAL");
        break;
      case NVML_FI_DEV_MEMORY_TEMP: out.Add(Metric::kMemTempC, gpu, value, "NVML_FI_DEV_MEMORY_TEMP"); break;
      case NVML_FI_DEV_PCIE_REPLAY_COUNTER:
        out.Add(Metric::kPcieReplayCount, gpu, value, "NVML_FI_DEV_PCIE_REPLAY_COUNTER");
        break;
      case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
        nvlink.tx_kib = value;
        nvlink.time_us = field.timestamp_us;
        break;
      case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
        nvlink.rx_kib = value;
        nvlink.time_us = field.timestamp_us;
        break;
      default:
        if (const HealthFieldMetric* health = FindHealthFieldMetric(field.field_id); health != nullptr && slow_read)
          out.Add(health->metric, gpu, value, health->source_name);
        break;
    }
  }
  return nvlink;
}

// The NVLink fields are KiB counters: a rate needs the previous pass; a counter that went
// backwards (driver reload, a replay wrapping around) starts over.
void AddNvlinkRates(BatchWriter& out, int32_t gpu, const NvlinkCounters& previous, const NvlinkCounters& now) {
  if (now.time_us > previous.time_us && previous.time_us >= 0) {
    double seconds = static_cast<double>(now.time_us - previous.time_us) / 1e6;
    if (now.tx_kib >= 0 && previous.tx_kib >= 0 && now.tx_kib >= previous.tx_kib)
      out.Add(Metric::kNvlinkTxBytesPerS, gpu, (now.tx_kib - previous.tx_kib) * 1024.0 / seconds,
              "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX");
    if (now.rx_kib >= 0 && previous.rx_kib >= 0 && now.rx_kib >= previous.rx_kib)
      out.Add(Metric::kNvlinkRxBytesPerS, gpu, (now.rx_kib - previous.rx_kib) * 1024.0 / seconds,
              "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX");
  }
}

void AddGpmValues(BatchWriter& out, const Answer<std::vector<GpmValue>>& gpm, int32_t entity) {
  if (!gpm.ok()) return;
  for (const GpmValue& m : gpm.value) {
    Metric metric = GpmMetric(m.metric_id);
    // NaN answers happen (an H100's DRAM activity for a 0.2 s process): no value, not a NaN.
    if (m.rc == NVML_SUCCESS && metric != Metric::kOther && std::isfinite(m.value))
      out.Add(metric, entity, m.value / 100.0, "nvmlGpmMetricsGet");
  }
}

// GPU instances (MIG): memory and GPM per instance.
void AddMigInstanceValues(BatchWriter& out, const DeviceInfo& info, const DeviceFrame& f) {
  for (const auto& [gi, mig] : f.migs) {
    std::string_view profile;
    for (const MigInstance& m : info.mig_instances)
      if (m.gpu_instance_id == static_cast<int32_t>(gi)) {
        profile = m.profile;
        break;
      }
    int32_t entity = out.NewEntity(info, static_cast<int32_t>(gi), "", -1);
    out.entity(static_cast<size_t>(entity)).mig_profile = GpuInstanceProfile(profile);
    AddMemoryValues(out, mig.memory, f.memory_v1, entity);
    AddGpmValues(out, mig.gpm, entity);
  }
}

// Processes: memory from the running-process list, utilization from the mean of the
// samples since the previous read (`whole_buffer`: the newest, see
// ForEachPidsMeanUtilization). `process_name(pid)` names a process seen for the first time
// in this pass; `scratch` is the sampler's, for ForEachPidsMeanUtilization.
template <typename ProcessNameOf>
void AddProcessValues(BatchWriter& out, const DeviceInfo& info, const DeviceFrame& f, bool whole_buffer,
                      std::vector<ProcessUtilization>& scratch, ProcessNameOf&& process_name) {
  size_t first_process = out.entity_count();
  auto process_entity = [&](uint32_t pid, uint32_t gpu_instance) -> int32_t {
    for (size_t e = first_process; e < out.entity_count(); ++e)
      if (out.entity(e).pid == pid) return static_cast<int32_t>(e);
    int32_t gi = gpu_instance == NVML_NO_INSTANCE_ID ? -1 : static_cast<int32_t>(gpu_instance);
    int32_t entity = out.NewEntity(info, gi, "", pid);
    out.entity(static_cast<size_t>(entity)).process_name = process_name(pid);
    return entity;
  };
  if (f.processes.ok())
    for (const ProcessAnswer& p : f.processes.value) {
      int32_t entity = process_entity(p.pid, p.gpu_instance_id);
      out.Add(Metric::kProcessUsedMemoryBytes, entity, static_cast<double>(p.used_bytes),
              "nvmlDeviceGetComputeRunningProcesses");
    }
  // Only a pass that read them (the slow cadence): in between the driver keeps the samples.
  if (f.process_utilization_read && f.process_utilization.ok())
    ForEachPidsMeanUtilization(f.process_utilization.value, whole_buffer, scratch, [&](uint32_t pid, double sm_pct, double mem_pct) {
      int32_t entity = process_entity(pid, NVML_NO_INSTANCE_ID);
      out.Add(Metric::kProcessSmUtilPct, entity, sm_pct, "nvmlDeviceGetProcessUtilization.sm");
      out.Add(Metric::kProcessMemUtilPct, entity, mem_pct, "nvmlDeviceGetProcessUtilization.mem");
    });
}

}  // namespace

NvmlSampler::NvmlSampler(NvmlApi& api, NvmlSamplerOptions options) : options_(std::move(options)), reader_(api) {}

const std::string& NvmlSampler::ProcessName(uint32_t pid) {
  auto it = process_names_.find(pid);
  if (it != process_names_.end()) return it->second;
  if (process_names_.size() > 1024) process_names_.clear();  // pids come and go; keep the cache small
  std::string name;
  if (!options_.proc_root.empty()) {
    std::ifstream in(options_.proc_root + "/" + std::to_string(pid) + "/comm");
    std::getline(in, name);
  }
  return process_names_.emplace(pid, std::move(name)).first->second;
}

int64_t NvmlSampler::NowUs() const {
  if (options_.clock_us) return options_.clock_us();
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void NvmlSampler::PlanSlowReads(std::span<const uint8_t> sample, int64_t now_us) {
  last_pass_slow_ = false;
  for (size_t d = 0; d < slow_due_.size(); ++d) {
    bool read = sample.empty() || (d < sample.size() && sample[d] != 0);
    bool due = read && (options_.slow_interval_us <= 0 || next_slow_us_[d] < 0 || now_us >= next_slow_us_[d]);
    slow_due_[d] = due ? 1 : 0;
    if (!due) continue;
    last_pass_slow_ = true;
    // Every GPU reads them in the first pass; after that GPU d's reads are offset by
    // d / n of the interval, so that a node's GPUs do not all make their ~44 ms of slow
    // calls in the same pass. On a fixed grid (a pass a little early or late does not drift
    // the cadence); a GPU that fell behind (not sampled for a while) starts a new grid now.
    int64_t interval = options_.slow_interval_us;
    int64_t next = next_slow_us_[d] < 0
                       ? now_us + interval * static_cast<int64_t>(d) / static_cast<int64_t>(slow_due_.size())
                       : next_slow_us_[d];
    next += interval;
    next_slow_us_[d] = next <= now_us ? now_us + interval : next;
  }
}

void NvmlSampler::Sample(SampleBatch& batch, std::span<const uint8_t> sample) {
  batch.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  auto start = std::chrono::steady_clock::now();
  PlanSlowReads(sample, NowUs());
  reader_.ReadFrame(frame_, sample, slow_due_);
  entity_count_ = 0;
  value_count_ = 0;
  for (size_t d = 0; d < devices_.size() && d < frame_.devices.size(); ++d) {
    if (sample.empty() || (d < sample.size() && sample[d] != 0)) {
      SampleDevice(d, frame_.devices[d], batch);
    } else if (!frame_.devices[d].xids.empty()) {
      last_xid_[d] = static_cast<int64_t>(frame_.devices[d].xids.back());
    }
  }
  CutTo(batch.entities, entity_count_, spare_entities_);
  CutTo(batch.values, value_count_, spare_values_);
  last_pass_us_ = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start)
                      .count();
}

void NvmlSampler::SampleDevice(size_t index, const DeviceFrame& f, SampleBatch& batch) {
  const DeviceInfo& info = devices_[index];
  BatchWriter out(batch, entity_count_, value_count_, spare_entities_, spare_values_);
  int32_t gpu = out.NewEntity(info, -1, "", -1);
  AddDeviceValues(out, f, gpu);

  Rates& rates = rates_[index];
  NvlinkCounters nvlink = AddFieldValues(out, f.fields, f.slow_read, gpu);
  AddNvlinkRates(out, gpu, NvlinkCounters{rates.tx_kib, rates.rx_kib, rates.time_us}, nvlink);
  rates = Rates{nvlink.tx_kib, nvlink.rx_kib, nvlink.time_us};

  if (!f.xids.empty()) last_xid_[index] = static_cast<int64_t>(f.xids.back());
  if (last_xid_[index] >= 0) out.Add(Metric::kXidLast, gpu, static_cast<double>(last_xid_[index]), "nvmlEventSetWait");

  AddGpmValues(out, f.gpm, gpu);
  AddMigInstanceValues(out, info, f);
  AddProcessValues(out, info, f, !process_samples_seen_[index], process_samples_,
                   [this](uint32_t pid) -> const std::string& { return ProcessName(pid); });
  // Once a read has answered (samples, or NOT_FOUND: none kept), every later read answers
  // only samples taken after it.
  if (f.process_utilization_read && (f.process_utilization.ok() || f.process_utilization.rc == NVML_ERROR_NOT_FOUND))
    process_samples_seen_[index] = 1;
}

Result<NvmlSession> OpenNvmlSession(const std::string& library_path, NvmlSamplerOptions options) {
  NvmlSession session;
  KRAKEN_ASSIGN_OR_RETURN(session.library, NvmlLibrary::Load(library_path));
  if (session.library->is_replay()) options.proc_root.clear();  // captured pids are not ours
  session.sampler = std::make_unique<NvmlSampler>(*session.library, std::move(options));
  KRAKEN_RETURN_IF_ERROR(session.sampler->Open());
  return session;
}

}  // namespace kraken::nvml
