// The vocabulary of sampled metrics. Every source (NVML, nvidia-smi, dcgm-exporter,
// Prometheus) maps its fields onto these, so analyses never see source-specific names.
// Units are in the names; ratios are 0..1, percentages 0..100.
#pragma once

#include <cstdint>
#include <string_view>

namespace kraken {

#define KRAKEN_METRICS(X)                                                                        \
  X(kGpuUtilPct, "gpu_util_pct", "%", "Time a kernel was running (NVML utilization.gpu)")        \
  X(kMemCopyUtilPct, "mem_copy_util_pct", "%", "Time the memory controller was busy")            \
  X(kFbUsedBytes, "fb_used_bytes", "B", "Device memory used")                                    \
  X(kFbFreeBytes, "fb_free_bytes", "B", "Device memory free")                                    \
  X(kFbTotalBytes, "fb_total_bytes", "B", "Device memory total")                                 \
  X(kFbReservedBytes, "fb_reserved_bytes", "B", "Device memory reserved by the driver")          \
  X(kPowerW, "power_w", "W", "Power draw")                                                       \
  X(kPowerLimitW, "power_limit_w", "W", "Enforced power limit")                                  \
  X(kEnergyMj, "energy_mj", "mJ", "Energy consumed since driver load (counter)")                 \
  X(kSmClockMhz, "sm_clock_mhz", "MHz", "SM clock")                                              \
  X(kMemClockMhz, "mem_clock_mhz", "MHz", "Memory clock")                                        \
  X(kGpuTempC, "gpu_temp_c", "C", "GPU temperature")                                             \
  X(kMemTempC, "mem_temp_c", "C", "Memory temperature")                                          \
  X(kPcieTxBytesPerS, "pcie_tx_bytes_per_s", "B/s", "PCIe bytes sent by the GPU")                \
  X(kPcieRxBytesPerS, "pcie_rx_bytes_per_s", "B/s", "PCIe bytes received by the GPU")            \
  X(kNvlinkTxBytesPerS, "nvlink_tx_bytes_per_s", "B/s", "NVLink bytes sent")                     \
  X(kNvlinkRxBytesPerS, "nvlink_rx_bytes_per_s", "B/s", "NVLink bytes received")                 \
  X(kGrEngineActiveRatio, "gr_engine_active_ratio", "ratio", "Graphics/compute engine active")   \
  X(kSmActiveRatio, "sm_active_ratio", "ratio", "Cycles an SM had at least one warp")            \
  X(kSmOccupancyRatio, "sm_occupancy_ratio", "ratio", "Resident warps / max warps per SM")       \
  X(kTensorActiveRatio, "tensor_active_ratio", "ratio", "Cycles a tensor pipe was active")       \
  X(kDramActiveRatio, "dram_active_ratio", "ratio", "Cycles the DRAM interface was active")      \
  X(kFp64ActiveRatio, "fp64_active_ratio", "ratio", "Cycles the FP64 pipe was active")           \
  X(kFp32ActiveRatio, "fp32_active_ratio", "ratio", "Cycles the FMA (FP32) pipe was active")     \
  X(kFp16ActiveRatio, "fp16_active_ratio", "ratio", "Cycles the FP16 pipe was active")           \
  X(kEncoderUtilPct, "encoder_util_pct", "%", "Video encoder utilization")                       \
  X(kDecoderUtilPct, "decoder_util_pct", "%", "Video decoder utilization")                       \
  X(kXidLast, "xid_last", "code", "Last XID error code")                                         \
  X(kEccCorrectedVolatileCount, "ecc_corrected_volatile_count", "count",                          \
    "Corrected (single-bit) ECC errors since the driver loaded (counter)")                        \
  X(kEccUncorrectedVolatileCount, "ecc_uncorrected_volatile_count", "count",                      \
    "Uncorrected (double-bit) ECC errors since the driver loaded (counter)")                      \
  X(kPcieReplayCount, "pcie_replay_count", "count", "PCIe replays (counter)")                    \
  X(kRemappedRowsCorrectableCount, "remapped_rows_correctable_count", "count",                    \
    "Memory rows remapped for correctable errors (counter, Ampere and newer)")                    \
  X(kRemappedRowsUncorrectableCount, "remapped_rows_uncorrectable_count", "count",                \
    "Memory rows remapped for uncorrectable errors (counter, Ampere and newer)")                  \
  X(kRemappedRowsPending, "remapped_rows_pending", "flag", "1: a row remap waits for a GPU reset") \
  X(kRemappedRowsFailure, "remapped_rows_failure", "flag", "1: a row remap failed")               \
  X(kRetiredPagesSbeCount, "retired_pages_sbe_count", "count",                                    \
    "Memory pages retired for single-bit errors (counter, before Ampere)")                        \
  X(kRetiredPagesDbeCount, "retired_pages_dbe_count", "count",                                    \
    "Memory pages retired for double-bit errors (counter, before Ampere)")                        \
  X(kRetiredPagesPending, "retired_pages_pending", "flag", "1: a page waits to be retired")       \
  X(kNvlinkCrcFlitErrorCount, "nvlink_crc_flit_error_count", "count",                             \
    "NVLink flow-control CRC errors, all links (counter)")                                        \
  X(kNvlinkCrcDataErrorCount, "nvlink_crc_data_error_count", "count",                             \
    "NVLink data CRC errors, all links (counter)")                                                \
  X(kNvlinkReplayErrorCount, "nvlink_replay_error_count", "count", "NVLink replays, all links (counter)") \
  X(kNvlinkRecoveryErrorCount, "nvlink_recovery_error_count", "count",                            \
    "NVLink link recoveries, all links (counter)")                                                \
  X(kProcessSmUtilPct, "process_sm_util_pct", "%", "SM utilization of one process")              \
  X(kProcessMemUtilPct, "process_mem_util_pct", "%", "Memory-controller utilization of a process") \
  X(kProcessUsedMemoryBytes, "process_used_memory_bytes", "B", "Device memory used by a process") \
  X(kAllocatorAllocatedBytes, "allocator_allocated_bytes", "B", "Framework allocator: memory in tensors") \
  X(kAllocatorReservedBytes, "allocator_reserved_bytes", "B", "Framework allocator: memory reserved") \
  X(kCudaAllocatedBytes, "cuda_allocated_bytes", "B",                                                   \
    "CUDA device allocations outstanding (cudaMalloc minus cudaFree; CUPTI memory records)")            \
  X(kOther, "other", "", "A field kraken has no canonical name for; see Series::source_name")

enum class Metric : uint16_t {
#define KRAKEN_METRIC_ENUM(id, name, unit, help) id,
  KRAKEN_METRICS(KRAKEN_METRIC_ENUM)
#undef KRAKEN_METRIC_ENUM
};

struct MetricInfo {
  Metric metric;
  std::string_view name;
  std::string_view unit;
  std::string_view help;
};

const MetricInfo& GetMetricInfo(Metric metric);
// Looks a metric up by its canonical name; kOther when unknown.
Metric MetricFromName(std::string_view name);

}  // namespace kraken
