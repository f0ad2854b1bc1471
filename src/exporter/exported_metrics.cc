#include "exporter/exported_metrics.h"

#include <array>
#include <vector>

namespace kraken::exporter {
namespace {

struct HelpRow {
  std::string_view field;
  std::string_view help;
};

// HELP texts. Those of fields in dcgm-exporter's etc/default-counters.csv (commented-out
// rows included) are its wording, checked against the file by exposition_test.cc; the
// last five have no row there and say what kraken measures.
constexpr HelpRow kHelp[] = {
    {"DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."},
    {"DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz)."},
    {"DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C)."},
    {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."},
    {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries."},
    {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %)."},
    {"DCGM_FI_DEV_ENC_UTIL", "Encoder utilization (in %)."},
    {"DCGM_FI_DEV_DEC_UTIL", "Decoder utilization (in %)."},
    {"DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."},
    {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)."},
    {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."},
    {"DCGM_FI_DEV_FB_RESERVED", "Framebuffer memory reserved (in MiB)."},
    {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors."},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors."},
    {"DCGM_FI_DEV_RETIRED_SBE", "Total number of retired pages due to single-bit errors."},
    {"DCGM_FI_DEV_RETIRED_DBE", "Total number of retired pages due to double-bit errors."},
    {"DCGM_FI_DEV_RETIRED_PENDING", "Total number of pages pending retirement."},
    {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "Total number of NVLink flow-control CRC errors."},
    {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "Total number of NVLink data CRC errors."},
    {"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "Total number of NVLink retries."},
    {"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "Total number of NVLink recovery errors."},
    {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "Number of remapped rows for uncorrectable errors"},
    {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "Number of remapped rows for correctable errors"},
    {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed"},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active."},
    {"DCGM_FI_PROF_SM_ACTIVE", "The ratio of cycles an SM has at least 1 warp assigned."},
    {"DCGM_FI_PROF_SM_OCCUPANCY", "The ratio of number of warps resident on an SM."},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "Ratio of cycles the tensor (HMMA) pipe is active."},
    {"DCGM_FI_PROF_DRAM_ACTIVE",
     "Ratio of cycles the device memory interface is active sending or receiving data."},
    {"DCGM_FI_PROF_PIPE_FP64_ACTIVE", "Ratio of cycles the fp64 pipes are active."},
    {"DCGM_FI_PROF_PIPE_FP32_ACTIVE", "Ratio of cycles the fp32 pipes are active."},
    {"DCGM_FI_PROF_PIPE_FP16_ACTIVE", "Ratio of cycles the fp16 pipes are active."},
    {"DCGM_FI_PROF_PCIE_TX_BYTES",
     "The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in "
     "bytes per second."},
    {"DCGM_FI_PROF_PCIE_RX_BYTES",
     "The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes "
     "per second."},
    // Not in the counters CSVs.
    {"DCGM_FI_DEV_FB_TOTAL", "Framebuffer memory total (in MiB)."},
    {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "Enforced power limit (in W)."},
    {"DCGM_FI_PROF_NVLINK_TX_BYTES", "The rate of data transmitted over NVLink, in bytes per second."},
    {"DCGM_FI_PROF_NVLINK_RX_BYTES", "The rate of data received over NVLink, in bytes per second."},
    {"DCGM_FI_DEV_ROW_REMAP_PENDING", "Whether remapped rows are pending (applied at the next GPU reset)."},
};

std::vector<ExportedMetric> BuildTable() {
  std::vector<ExportedMetric> out;
  for (const HelpRow& row : kHelp) {
    const prometheus::DcgmMetricEntry* entry = prometheus::FindDcgmMetric(row.field);
    // Every row names a catalog field with a canonical metric (exposition_test checks it).
    if (entry == nullptr || entry->metric == Metric::kOther) continue;
    out.push_back({entry->metric, entry, row.help});
  }
  return out;
}

const std::vector<ExportedMetric>& Table() {
  static const std::vector<ExportedMetric> table = BuildTable();
  return table;
}

}  // namespace

std::span<const ExportedMetric> ExportedMetrics() { return Table(); }

const ExportedMetric* FindExportedMetric(Metric metric) {
  for (const ExportedMetric& m : Table())
    if (m.metric == metric) return &m;
  return nullptr;
}

}  // namespace kraken::exporter
