// Devices: what a source reported about a real device (DeviceInfo), and the published
// peak capabilities of a device model (DeviceSpec) that the roofline compares against.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kraken {

enum class Vendor : uint8_t { kUnknown, kNvidia, kAmd, kMeta };

// Published dense peaks (no 2:4 sparsity) at boost clock, for one device as the
// runtime sees it (one GCD for AMD MI250/MI250X). 0 = the device has no such unit.
struct DeviceSpec {
  std::string id;    // short key for --device, e.g. "h100-sxm"
  std::string name;  // canonical, e.g. "NVIDIA H100 SXM5 80GB"
  Vendor vendor = Vendor::kUnknown;
  int sm_count = 0;  // SMs (NVIDIA) or CUs (AMD)
  int64_t memory_bytes = 0;
  double dram_bytes_per_s = 0;
  double fp64_flops_per_s = 0;         // vector/CUDA-core FP64
  double fp64_tensor_flops_per_s = 0;  // matrix FP64 (A100+, MI200+)
  double fp32_flops_per_s = 0;         // vector/CUDA-core FP32
  double tf32_tensor_flops_per_s = 0;
  double fp16_tensor_flops_per_s = 0;
  double bf16_tensor_flops_per_s = 0;
  double fp8_tensor_flops_per_s = 0;
  double int8_tensor_ops_per_s = 0;
  std::string memory_type;  // HBM2, HBM3, GDDR6, ...
  std::string source;       // where the numbers come from
  // SM clock (MHz) at which the compute peaks above are published (boost clock); 0 when
  // not recorded. Profilers that lock clocks (ncu runs at base clock by default) measure
  // kernels below it, so the classifier rescales the compute peaks to the measured clock.
  double boost_clock_mhz = 0;

  // FLOP per byte at which the FP32 (CUDA-core) roof meets the DRAM roof.
  double ridge_fp32() const { return dram_bytes_per_s > 0 ? fp32_flops_per_s / dram_bytes_per_s : 0; }
  // The same for the dense 16-bit tensor roof (FP16, or BF16 where FP16 is absent).
  double ridge_tensor16() const {
    double peak = fp16_tensor_flops_per_s > 0 ? fp16_tensor_flops_per_s : bf16_tensor_flops_per_s;
    return dram_bytes_per_s > 0 ? peak / dram_bytes_per_s : 0;
  }
};

// A MIG instance (GPU instance + compute instance) as nvidia-smi or NVML reported it.
struct MigInstance {
  int32_t gpu_instance_id = -1;
  int32_t compute_instance_id = -1;
  std::string profile;  // "1g.10gb"
  int64_t memory_bytes = -1;
  int32_t sm_count = -1;
};

// What a trace or a sampler reported about one physical device.
struct DeviceInfo {
  int32_t index = -1;  // as the source numbered it (CUDA index in traces, NVML index in smi)
  std::string name;    // as reported: "Tesla V100-SXM2-32GB", "NVIDIA H100 80GB HBM3"
  Vendor vendor = Vendor::kUnknown;
  std::string uuid;
  std::string pci_bus_id;
  std::string architecture;  // "Hopper", or gfx name for AMD when known
  int32_t sm_count = -1;
  int32_t compute_major = -1;
  int32_t compute_minor = -1;
  int64_t memory_bytes = -1;
  int32_t warp_size = -1;
  int32_t max_threads_per_sm = -1;
  int32_t registers_per_sm = -1;
  int64_t shared_memory_per_sm_bytes = -1;
  std::optional<double> max_sm_clock_mhz;
  std::optional<double> max_mem_clock_mhz;
  std::optional<double> power_limit_w;
  std::optional<int> pcie_generation;
  std::optional<int> pcie_link_width;
  std::string driver_version;
  std::string cuda_version;
  bool mig_enabled = false;
  // MIG mode after the next GPU reset (nvidia-smi "MIG Mode / Pending"); differs from
  // mig_enabled while a mode change waits for a reset.
  bool mig_enabled_pending = false;
  std::vector<MigInstance> mig_instances;
  // /dev/nvidia<minor>: what dcgm-exporter's device="nvidia0" label names (nvidia-smi -q).
  int32_t minor_number = -1;
};

}  // namespace kraken
