// An NVML capture: what NVML answered on one node, call by call, with the return code of
// every answer so that an unsupported query replays as unsupported. The recorder writes
// it (from real NVML or another capture), the converter derives it from nvidia-smi output,
// the replay library serves it through the NVML C API. The text form is described in
// docs/nvml-capture-format.md.
//
// The same structs are what the collector reads in one pass (DeviceFrame), so sampling and
// recording share one reading code path.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collectors/nvml/nvml_api.h"

namespace kraken::nvml {

// One NVML answer: the return code and, when it is NVML_SUCCESS, the value. A query the
// capture does not mention answers NOT_SUPPORTED.
template <typename T>
struct Answer {
  nvmlReturn_t rc = NVML_ERROR_NOT_SUPPORTED;
  T value{};

  bool ok() const { return rc == NVML_SUCCESS; }
  void Set(T v) {
    rc = NVML_SUCCESS;
    value = std::move(v);
  }
  bool operator==(const Answer&) const = default;
};

struct PciInfo {
  std::string bus_id;  // "00000000:00:09.0" as nvmlPciInfo_t::busId spells it
  uint32_t domain = 0;
  uint32_t bus = 0;
  uint32_t device = 0;
  uint32_t device_id = 0;  // pciDeviceId: device << 16 | vendor
  uint32_t subsystem_id = 0;
  bool operator==(const PciInfo&) const = default;
};

struct Attributes {  // nvmlDeviceAttributes_t
  uint32_t sm_count = 0;
  uint32_t shared_copy_engines = 0;
  uint32_t shared_decoders = 0;
  uint32_t shared_encoders = 0;
  uint32_t shared_jpegs = 0;
  uint32_t shared_ofas = 0;
  uint32_t gpu_instance_slices = 0;
  uint32_t compute_instance_slices = 0;
  uint64_t memory_mib = 0;
  bool operator==(const Attributes&) const = default;
};

struct MemoryInfo {  // nvmlMemory_v2_t; the v1 call answers total/free/used of the same
  uint64_t total = 0;
  uint64_t reserved = 0;
  uint64_t free = 0;
  uint64_t used = 0;
  bool operator==(const MemoryInfo&) const = default;
};

struct NvLinkFacts {
  Answer<uint32_t> state;      // nvmlDeviceGetNvLinkState: 1 = active
  Answer<std::string> remote;  // nvmlDeviceGetNvLinkRemotePciInfo busId
  bool operator==(const NvLinkFacts&) const = default;
};

// A MIG device (one compute instance of one GPU instance) as NVML enumerates it under its
// GPU with nvmlDeviceGetMigDeviceHandleByIndex.
struct MigFacts {
  uint32_t index = 0;  // the MIG device index on its GPU
  Answer<uint32_t> gpu_instance_id;
  Answer<uint32_t> compute_instance_id;
  Answer<std::string> name;  // "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
  Answer<std::string> uuid;
  Answer<Attributes> attributes;
  bool operator==(const MigFacts&) const = default;
};

// What does not change while the node runs.
struct DeviceFacts {
  Answer<std::string> name;
  Answer<std::string> uuid;
  Answer<PciInfo> pci;
  Answer<uint32_t> minor_number;
  Answer<uint32_t> architecture;  // NVML_DEVICE_ARCH_*
  Answer<std::pair<int32_t, int32_t>> compute_capability;
  Answer<uint32_t> num_gpu_cores;
  Answer<Attributes> attributes;
  Answer<uint32_t> max_sm_clock_mhz;
  Answer<uint32_t> max_mem_clock_mhz;
  Answer<uint32_t> power_limit_mw;  // enforced
  Answer<uint32_t> pcie_max_generation;
  Answer<uint32_t> pcie_max_width;
  Answer<std::pair<uint32_t, uint32_t>> mig_mode;  // current, pending
  Answer<uint32_t> gpm_supported;                  // nvmlGpmSupport_t::isSupportedDevice
  Answer<uint32_t> numa_node;
  Answer<std::vector<uint32_t>> cpu_affinity;  // CPU ids in the ideal affinity mask
  std::vector<NvLinkFacts> nvlinks;            // by link id; links past the end: not supported
  Answer<uint32_t> max_mig_devices;
  std::vector<MigFacts> migs;
  bool operator==(const DeviceFacts&) const = default;
};

struct SystemFacts {
  Answer<std::string> driver_version;
  Answer<std::string> nvml_version;
  Answer<int32_t> cuda_driver_version;  // 13010 = CUDA 13.1
  Answer<uint32_t> device_count;
  bool operator==(const SystemFacts&) const = default;
};

struct TopologyLink {
  uint32_t a = 0;  // device indices, a < b
  uint32_t b = 0;
  Answer<int32_t> common_ancestor;  // NVML_TOPOLOGY_*
  bool operator==(const TopologyLink&) const = default;
};

struct FieldAnswer {  // one nvmlFieldValue_t
  uint32_t field_id = 0;
  uint32_t scope_id = 0;
  nvmlReturn_t rc = NVML_ERROR_NOT_SUPPORTED;
  int32_t value_type = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
  uint64_t bits = 0;  // the nvmlValue_t union's 8 bytes
  // When NVML read it (Unix µs); not stored in captures: the replay stamps the frame's time.
  int64_t timestamp_us = 0;
  bool operator==(const FieldAnswer& o) const {
    return field_id == o.field_id && scope_id == o.scope_id && rc == o.rc && value_type == o.value_type &&
           bits == o.bits;
  }
};
// The field's value as a number, read as its value_type says.
double FieldNumber(const FieldAnswer& field);

struct ProcessAnswer {  // nvmlProcessInfo_t
  uint32_t pid = 0;
  uint64_t used_bytes = 0;
  uint32_t gpu_instance_id = NVML_NO_INSTANCE_ID;
  uint32_t compute_instance_id = NVML_NO_INSTANCE_ID;
  bool operator==(const ProcessAnswer&) const = default;
};

struct ProcessUtilization {  // nvmlProcessUtilizationSample_t
  uint32_t pid = 0;
  uint64_t time_us = 0;  // in a capture: µs since the capture's start; as read: Unix µs
  uint32_t sm_pct = 0;
  uint32_t mem_pct = 0;
  uint32_t enc_pct = 0;
  uint32_t dec_pct = 0;
  bool operator==(const ProcessUtilization&) const = default;
};

struct GpmValue {
  uint32_t metric_id = 0;
  nvmlReturn_t rc = NVML_ERROR_NOT_SUPPORTED;
  double value = 0;  // percent (0..100), or MiB/s for the bandwidth metrics
  bool operator==(const GpmValue&) const = default;
};

struct UtilizationRates {
  uint32_t gpu_pct = 0;
  uint32_t mem_pct = 0;
  bool operator==(const UtilizationRates&) const = default;
};

// One GPU instance in one pass (read through its first MIG device).
struct MigFrame {
  Answer<MemoryInfo> memory;
  // GPM of the GPU instance between the previous pass and this one. NO_DATA on the first.
  Answer<std::vector<GpmValue>> gpm;
  bool operator==(const MigFrame&) const = default;
};

// One GPU in one pass.
struct DeviceFrame {
  Answer<UtilizationRates> utilization;
  Answer<MemoryInfo> memory;
  // True when only nvmlDeviceGetMemoryInfo (v1) answered: `reserved` is unknown (0) and
  // `used` includes it. Not stored in captures.
  bool memory_v1 = false;
  Answer<uint32_t> power_mw;
  Answer<uint64_t> energy_mj;
  Answer<uint32_t> sm_clock_mhz;
  Answer<uint32_t> mem_clock_mhz;
  Answer<uint32_t> gpu_temp_c;
  Answer<uint32_t> pcie_tx_kbps;  // KB/s
  Answer<uint32_t> pcie_rx_kbps;
  Answer<uint32_t> encoder_pct;
  Answer<uint32_t> decoder_pct;
  // kFieldRequests' answers, then kHealthFieldRequests' (nvml_reader.h) as the reader
  // fills it; a parsed capture has the fields it names, in its order.
  std::vector<FieldAnswer> fields;
  Answer<std::vector<ProcessAnswer>> processes{NVML_SUCCESS, {}};
  // The samples newer than the previous read's; NOT_FOUND when there are none.
  Answer<std::vector<ProcessUtilization>> process_utilization{NVML_ERROR_NOT_FOUND, {}};
  // Whether this pass asked nvmlDeviceGetProcessUtilization: it is on the slow cadence
  // (slow_read). When false, process_utilization is empty and its code is no answer: the
  // driver keeps the samples, and the next read returns them. A capture writes
  // `process_utilization_read = 0` on such frames; without the key a frame read them (the
  // captures recorded when every pass read them).
  bool process_utilization_read = true;
  std::vector<uint64_t> xids;  // XID critical errors delivered in this pass
  Answer<std::vector<GpmValue>> gpm;
  std::map<uint32_t, MigFrame> migs;  // by GPU instance id
  // Whether this pass asked the slow calls (energy, PCIe throughput, process utilization
  // and the health fields; NvmlReader::ReadFrame).
  // When false, energy, PCIe and the health fields hold the last slow pass's answers. Not
  // stored in captures.
  bool slow_read = true;
  bool operator==(const DeviceFrame&) const = default;
};

struct Frame {
  uint64_t time_us = 0;  // since the capture's start
  std::vector<DeviceFrame> devices;
  bool operator==(const Frame&) const = default;
};

struct Capture {
  // Provenance: "source" (recorded / derived-from-nvidia-smi), "source_file",
  // "source_sha256", "recorded_by", ...; written as `key = value` lines of [capture].
  std::map<std::string, std::string> info;
  // Free text written as comments at the top (what was derived, what is missing).
  std::vector<std::string> notes;
  uint64_t start_unix_us = 0;  // wall clock of frame 0
  uint64_t interval_us = 0;    // time between frames; also the gap when frames wrap around
  // Functions the replay answers with ARGUMENT_VERSION_MISMATCH, to emulate a driver that
  // exports a versioned symbol but not the struct version kraken passes.
  std::vector<std::string> version_mismatch;
  SystemFacts system;
  std::vector<DeviceFacts> devices;
  std::vector<TopologyLink> topology;
  std::vector<Frame> frames;
};

}  // namespace kraken::nvml
