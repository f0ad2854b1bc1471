// Reads NVML through an NvmlApi into the capture structs: the node's facts once (Open) and
// one DeviceFrame per GPU per pass (ReadFrame). The sampler turns frames into SampleBatch
// values and the recorder writes them to a capture, so both read NVML the same way.
//
// Call order inside a pass is part of the replay contract: nvmlDeviceGetUtilizationRates is
// the first query on each GPU, and GPU 0 is read first.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "collectors/nvml/capture.h"
#include "collectors/nvml/nvml_health_fields.h"
#include "collectors/nvml/nvml_library.h"

namespace kraken::nvml {

// The fields every pass asks nvmlDeviceGetFieldValues for.
struct FieldRequest {
  uint32_t field_id;
  uint32_t scope_id;
};
inline constexpr std::array<FieldRequest, 6> kFieldRequests = {{
    {NVML_FI_DEV_ECC_SBE_VOL_TOTAL, 0},
    {NVML_FI_DEV_ECC_DBE_VOL_TOTAL, 0},
    {NVML_FI_DEV_MEMORY_TEMP, 0},
    {NVML_FI_DEV_PCIE_REPLAY_COUNTER, 0},
    {NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_NVLINK_SCOPE_ALL_LINKS},
    {NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, NVML_NVLINK_SCOPE_ALL_LINKS},
}};

// The GPU health counters, asked in one more nvmlDeviceGetFieldValues call on the slow
// cadence only (with the energy and PCIe reads): they change rarely, and 11 more fields in
// the per-pass call would slow every pass. A GPU answers NOT_SUPPORTED per field for what
// it lacks: retired pages on Ampere and newer, remapped rows before Ampere, the NVLink
// counters without NVLink. In a frame they follow kFieldRequests' answers in
// DeviceFrame::fields, holding the last slow pass's answers in between (like energy).
// One list with the metrics (kHealthFieldMetrics), so that every field asked has a metric.
inline constexpr std::array<FieldRequest, kHealthFieldMetrics.size()> kHealthFieldRequests = [] {
  std::array<FieldRequest, kHealthFieldMetrics.size()> requests{};
  for (size_t i = 0; i < requests.size(); ++i)
    requests[i] = FieldRequest{kHealthFieldMetrics[i].field_id, kHealthFieldMetrics[i].scope_id};
  return requests;
}();

// The GPM metrics every pass asks for on Hopper and newer.
inline constexpr std::array<uint32_t, 8> kGpmMetrics = {
    NVML_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_SM_UTIL,   NVML_GPM_METRIC_SM_OCCUPANCY,
    NVML_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL, NVML_GPM_METRIC_FP64_UTIL,
    NVML_GPM_METRIC_FP32_UTIL,     NVML_GPM_METRIC_FP16_UTIL};

class NvmlReader {
 public:
  explicit NvmlReader(NvmlApi& api) : api_(api) {}
  ~NvmlReader();
  NvmlReader(const NvmlReader&) = delete;
  NvmlReader& operator=(const NvmlReader&) = delete;

  // nvmlInit, then the facts of every GPU, its MIG devices and the topology.
  Status Open();

  const SystemFacts& system() const { return system_; }
  const std::vector<DeviceFacts>& devices() const { return devices_; }
  const std::vector<TopologyLink>& topology() const { return topology_; }
  // The memory of a GPU (or of GPU instance `gpu_instance`) as NVML answers right now.
  Answer<MemoryInfo> ReadMemory(size_t device, int64_t gpu_instance = -1);

  // One pass over every GPU. Reuses `frame`'s buffers: no allocation in steady state.
  // With `read` (one entry per GPU), only GPUs whose entry is nonzero are asked; the
  // others keep their previous DeviceFrame, except `xids`, which always hold this pass's
  // events (the event set is drained every pass).
  // With `slow` (one entry per GPU), the slow calls -- nvmlDeviceGetTotalEnergyConsumption
  // (~2.4 ms on an H100), nvmlDeviceGetPcieThroughput (blocks 20 ms per direction),
  // nvmlDeviceGetProcessUtilization (~2.4 ms) and the health fields (kHealthFieldRequests)
  // -- are made only on GPUs whose entry is
  // nonzero; DeviceFrame::slow_read and process_utilization_read say which.
  // Empty: every GPU read gets them.
  void ReadFrame(Frame& frame, std::span<const uint8_t> read = {}, std::span<const uint8_t> slow = {});

 private:
  struct GpmState {
    nvmlGpmSample_t samples[2] = {nullptr, nullptr};
    int current = 0;
    bool have_previous = false;
  };
  struct GpuInstance {
    uint32_t id = 0;
    nvmlDevice_t handle = nullptr;  // its first MIG device
    GpmState gpm;
  };
  struct Gpu {
    nvmlDevice_t handle = nullptr;
    std::vector<GpuInstance> instances;
    GpmState gpm;
    bool memory_v1 = false;       // the v2 call is missing or rejects the struct version
    bool temperature_v1 = false;  // the same for nvmlDeviceGetTemperatureV
    unsigned long long last_seen_us = 0;
    std::vector<nvmlProcessInfo_t> processes;
    std::vector<nvmlProcessUtilizationSample_t> samples;
    std::array<nvmlFieldValue_t, kFieldRequests.size()> fields{};
    std::array<nvmlFieldValue_t, kHealthFieldRequests.size()> health_fields{};
  };

  void ReadFacts(nvmlDevice_t handle, DeviceFacts& facts);
  void ReadDevice(Gpu& gpu, const DeviceFacts& facts, bool slow, DeviceFrame& frame);
  void ReadSlow(Gpu& gpu, DeviceFrame& frame);
  // One nvmlDeviceGetFieldValues call for `requests` (`buffer`: as many entries), answers
  // into `out` (as many entries).
  void AskFields(nvmlDevice_t handle, std::span<const FieldRequest> requests, std::span<nvmlFieldValue_t> buffer,
                 std::span<FieldAnswer> out);
  Answer<MemoryInfo> Memory(nvmlDevice_t handle, bool& v1);
  void ReadProcesses(Gpu& gpu, DeviceFrame& frame);
  void ReadProcessUtilization(Gpu& gpu, DeviceFrame& frame);
  // GPM between the previous pass and now, for a GPU (gpu_instance < 0) or a GPU instance.
  void ReadGpm(nvmlDevice_t gpu, int64_t gpu_instance, GpmState& state, Answer<std::vector<GpmValue>>& out);
  void ReadXids(Frame& frame);
  void FreeGpm(GpmState& state);

  NvmlApi& api_;
  bool initialized_ = false;
  SystemFacts system_;
  std::vector<DeviceFacts> devices_;
  std::vector<TopologyLink> topology_;
  std::vector<Gpu> gpus_;
  nvmlEventSet_t events_ = nullptr;
  nvmlGpmMetricsGet_t metrics_get_{};
};

}  // namespace kraken::nvml
