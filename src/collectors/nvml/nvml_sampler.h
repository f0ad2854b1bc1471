// The NVML collector: enumerates the GPUs of a node (DeviceInfo, topology) and fills one
// SampleBatch per sampling pass. A metric the device does not support is absent from the
// batch, never zero.
//
// Steady-state passes allocate nothing: the reader reuses its frame, and the batch's
// entities and values are overwritten in place (keep passing the same SampleBatch).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "collectors/nvml/nvml_library.h"
#include "collectors/nvml/nvml_reader.h"
#include "collectors/nvml/topology.h"
#include "model/device.h"
#include "model/sample_batch.h"

namespace kraken::nvml {

struct NvmlSamplerOptions {
  // Where process names come from (<proc_root>/<pid>/comm); empty = do not look them up.
  std::string proc_root = "/proc";
  // Time between the slow reads of a GPU: nvmlDeviceGetTotalEnergyConsumption,
  // nvmlDeviceGetPcieThroughput (tx, rx) and nvmlDeviceGetProcessUtilization, ~46 ms per
  // H100 together against ~0.3 ms for all the other calls. A pass in between does not ask
  // them and its batch has no energy, PCIe throughput or process utilization values (the
  // driver keeps the process samples for the next read). Every GPU reads them in the
  // first pass; after that the GPUs' slow reads are spread over the interval (GPU d offset
  // by d/n of it). 0: every pass.
  int64_t slow_interval_us = kDefaultSlowIntervalUs;
  // Monotonic µs for the slow cadence; empty: std::chrono::steady_clock (tests step it).
  std::function<int64_t()> clock_us;

  static constexpr int64_t kDefaultSlowIntervalUs = 1'000'000;
};

// "Hopper" for NVML_DEVICE_ARCH_HOPPER, as nvidia-smi -q names it; "" when unknown.
std::string_view ArchitectureName(uint32_t architecture);
// "3g.40gb" from the MIG device name "NVIDIA H100 80GB HBM3 MIG 3g.40gb"; "" when absent.
std::string MigProfileFromName(std::string_view mig_device_name);
// The profile of the GPU instance: "3g.71gb" for the compute-instance profile "1c.3g.71gb".
std::string GpuInstanceProfile(std::string_view mig_profile);

class NvmlSampler {
 public:
  explicit NvmlSampler(NvmlApi& api, NvmlSamplerOptions options = {});

  // nvmlInit and enumeration. Fails when NVML cannot be initialized.
  Status Open();

  const std::vector<DeviceInfo>& devices() const { return devices_; }
  // Per GPU: whether GPM (SM/tensor/DRAM activity) is sampled.
  bool gpm_supported(size_t device) const;
  const NodeTopology& topology() const { return topology_; }
  const NvmlReader& reader() const { return reader_; }

  // One pass over all GPUs; `batch` is overwritten (its buffers are reused).
  void Sample(SampleBatch& batch) { Sample(batch, {}); }
  // One pass over the GPUs whose entry of `sample` (one per device) is nonzero: the
  // others are not asked and have no entities or values in `batch` (the agent's per-pod
  // sampling intervals). An empty span samples every GPU. XIDs of a skipped GPU are still
  // drained and count as its last XID when it is next sampled.
  void Sample(SampleBatch& batch, std::span<const uint8_t> sample);
  // The raw answers of the last pass.
  const Frame& last_frame() const { return frame_; }
  // How long the last Sample() took (NVML calls and batch), and whether it made slow reads.
  int64_t last_pass_duration_us() const { return last_pass_us_; }
  bool last_pass_was_slow() const { return last_pass_slow_; }

 private:
  struct Rates {  // previous NVLink counters, to turn them into bytes per second
    double tx_kib = -1;
    double rx_kib = -1;
    int64_t time_us = -1;
  };

  void SampleDevice(size_t index, const DeviceFrame& frame, SampleBatch& batch);
  int64_t NowUs() const;
  // Fills slow_due_ for this pass: a GPU to be read whose slow reads are due.
  void PlanSlowReads(std::span<const uint8_t> sample, int64_t now_us);
  const std::string& ProcessName(uint32_t pid);

  NvmlSamplerOptions options_;
  NvmlReader reader_;
  std::vector<DeviceInfo> devices_;
  NodeTopology topology_;
  Frame frame_;
  std::vector<Rates> rates_;
  std::vector<int64_t> last_xid_;  // per GPU; -1 = none seen since Open
  std::vector<int64_t> next_slow_us_;  // per GPU: when its slow reads are next due; -1 = now
  std::vector<uint8_t> slow_due_;      // per GPU, this pass
  int64_t last_pass_us_ = 0;
  bool last_pass_slow_ = false;
  std::unordered_map<uint32_t, std::string> process_names_;
  size_t entity_count_ = 0;
  size_t value_count_ = 0;
  // Entries a shorter pass cut from the batch, kept with their string buffers for the next
  // longer pass (processes come and go), so that steady state allocates nothing.
  std::vector<SeriesEntity> spare_entities_;
  std::vector<SampleBatch::Value> spare_values_;
  // A read's valid process-utilization samples, sorted to average them per pid (reused).
  std::vector<ProcessUtilization> process_samples_;
  // Per GPU: a process-utilization read has answered, so later reads answer only samples
  // taken since (lastSeenTimeStamp); the first answers the driver's whole buffer.
  std::vector<uint8_t> process_samples_seen_;
};

// Loads NVML (explicit path, KRAKEN_NVML_LIBRARY, or the driver) and opens a sampler on it.
struct NvmlSession {
  std::unique_ptr<NvmlLibrary> library;
  std::unique_ptr<NvmlSampler> sampler;
};
Result<NvmlSession> OpenNvmlSession(const std::string& library_path, NvmlSamplerOptions options = {});

}  // namespace kraken::nvml
