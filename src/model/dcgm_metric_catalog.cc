#include "model/dcgm_metric_catalog.h"

#include <charconv>

#include "base/text.h"

namespace kraken::prometheus {
namespace {

// dcgm-exporter reports framebuffer sizes in MiB; kraken stores bytes.
constexpr double kMiB = 1024.0 * 1024.0;

// Units as dcgm-exporter's default-counters.csv documents them: clocks MHz, temperatures
// C, power W, energy mJ, utilizations %, DCP activities as 0..1 ratios (the 1.x CSV's
// "(in %)" on them is wrong: the values are ratios there too), and PROF_PCIE/NVLINK
// *_BYTES as rates in B/s despite their names (DCGM fields 1009-1012). The Prometheus type
// is the one the counters CSVs declare (PROF_PCIE_*_BYTES: gauge, the CSVs' current rows).
constexpr DcgmMetricEntry kCatalog[] = {
    // Utilization
    {"DCGM_FI_DEV_GPU_UTIL", "dcgm_gpu_utilization", Metric::kGpuUtilPct, 1, PromType::kGauge},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "dcgm_mem_copy_utilization", Metric::kMemCopyUtilPct, 1, PromType::kGauge},
    {"DCGM_FI_DEV_ENC_UTIL", "dcgm_enc_utilization", Metric::kEncoderUtilPct, 1, PromType::kGauge},
    {"DCGM_FI_DEV_DEC_UTIL", "dcgm_dec_utilization", Metric::kDecoderUtilPct, 1, PromType::kGauge},
    // Memory
    {"DCGM_FI_DEV_FB_USED", "dcgm_fb_used", Metric::kFbUsedBytes, kMiB, PromType::kGauge},
    {"DCGM_FI_DEV_FB_FREE", "dcgm_fb_free", Metric::kFbFreeBytes, kMiB, PromType::kGauge},
    {"DCGM_FI_DEV_FB_TOTAL", "", Metric::kFbTotalBytes, kMiB, PromType::kGauge},
    {"DCGM_FI_DEV_FB_RESERVED", "", Metric::kFbReservedBytes, kMiB, PromType::kGauge},
    // Power, clocks, temperatures
    {"DCGM_FI_DEV_POWER_USAGE", "dcgm_power_usage", Metric::kPowerW, 1, PromType::kGauge},
    {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "", Metric::kPowerLimitW, 1, PromType::kGauge},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "dcgm_total_energy_consumption", Metric::kEnergyMj, 1, PromType::kCounter},
    {"DCGM_FI_DEV_SM_CLOCK", "dcgm_sm_clock", Metric::kSmClockMhz, 1, PromType::kGauge},
    {"DCGM_FI_DEV_MEM_CLOCK", "dcgm_memory_clock", Metric::kMemClockMhz, 1, PromType::kGauge},
    {"DCGM_FI_DEV_GPU_TEMP", "dcgm_gpu_temp", Metric::kGpuTempC, 1, PromType::kGauge},
    {"DCGM_FI_DEV_MEMORY_TEMP", "dcgm_memory_temp", Metric::kMemTempC, 1, PromType::kGauge},
    // Errors
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "dcgm_pcie_replay_counter", Metric::kPcieReplayCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_XID_ERRORS", "dcgm_xid_errors", Metric::kXidLast, 1, PromType::kGauge},
    // Volatile ECC totals (since the driver loaded), as the NVML collector reads them.
    {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "dcgm_ecc_sbe_volatile_total", Metric::kEccCorrectedVolatileCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "dcgm_ecc_dbe_volatile_total", Metric::kEccUncorrectedVolatileCount, 1, PromType::kCounter},
    // Health counters the NVML collector reads on its slow cadence: retired pages (before
    // Ampere), NVLink error totals, remapped rows (Ampere and newer). ROW_REMAP_PENDING has
    // no row in the counters CSVs; it is a 0/1 flag like ROW_REMAP_FAILURE, hence a gauge.
    {"DCGM_FI_DEV_RETIRED_SBE", "dcgm_retired_pages_sbe", Metric::kRetiredPagesSbeCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_RETIRED_DBE", "dcgm_retired_pages_dbe", Metric::kRetiredPagesDbeCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_RETIRED_PENDING", "dcgm_retired_pages_pending", Metric::kRetiredPagesPending, 1, PromType::kCounter},
    {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "dcgm_nvlink_flit_crc_error_count_total",
     Metric::kNvlinkCrcFlitErrorCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "dcgm_nvlink_data_crc_error_count_total",
     Metric::kNvlinkCrcDataErrorCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "dcgm_nvlink_replay_error_count_total",
     Metric::kNvlinkReplayErrorCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "dcgm_nvlink_recovery_error_count_total",
     Metric::kNvlinkRecoveryErrorCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "", Metric::kRemappedRowsUncorrectableCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "", Metric::kRemappedRowsCorrectableCount, 1, PromType::kCounter},
    {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "", Metric::kRemappedRowsFailure, 1, PromType::kGauge},
    {"DCGM_FI_DEV_ROW_REMAP_PENDING", "", Metric::kRemappedRowsPending, 1, PromType::kGauge},
    // Datacenter profiling (DCP)
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "dcgm_fi_prof_gr_engine_active", Metric::kGrEngineActiveRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_SM_ACTIVE", "dcgm_fi_prof_sm_active", Metric::kSmActiveRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_SM_OCCUPANCY", "dcgm_fi_prof_sm_occupancy", Metric::kSmOccupancyRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "dcgm_fi_prof_pipe_tensor_active", Metric::kTensorActiveRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_DRAM_ACTIVE", "dcgm_fi_prof_dram_active", Metric::kDramActiveRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_PIPE_FP64_ACTIVE", "", Metric::kFp64ActiveRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_PIPE_FP32_ACTIVE", "", Metric::kFp32ActiveRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_PIPE_FP16_ACTIVE", "", Metric::kFp16ActiveRatio, 1, PromType::kGauge},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", "dcgm_fi_prof_pcie_tx_bytes", Metric::kPcieTxBytesPerS, 1, PromType::kGauge},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", "dcgm_fi_prof_pcie_rx_bytes", Metric::kPcieRxBytesPerS, 1, PromType::kGauge},
    {"DCGM_FI_PROF_NVLINK_TX_BYTES", "", Metric::kNvlinkTxBytesPerS, 1, PromType::kGauge},
    {"DCGM_FI_PROF_NVLINK_RX_BYTES", "", Metric::kNvlinkRxBytesPerS, 1, PromType::kGauge},
    // Fields with a 1.x name but no canonical metric: kept here so that the 1.x names
    // map to their fields. NVLINK_BANDWIDTH_TOTAL is a counter of all lanes, not a
    // TX or RX rate, so it is not an NVLink metric either.
    {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "dcgm_nvlink_bandwidth_total", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_POWER_VIOLATION", "dcgm_power_violation", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_THERMAL_VIOLATION", "dcgm_thermal_violation", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_SYNC_BOOST_VIOLATION", "dcgm_sync_boost_violation", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "dcgm_board_limit_violation", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_LOW_UTIL_VIOLATION", "dcgm_low_util_violation", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_RELIABILITY_VIOLATION", "dcgm_reliability_violation", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "dcgm_ecc_sbe_aggregate_total", Metric::kOther, 1, PromType::kCounter},
    {"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "dcgm_ecc_dbe_aggregate_total", Metric::kOther, 1, PromType::kCounter},
};

}  // namespace

std::span<const DcgmMetricEntry> DcgmMetricCatalog() { return kCatalog; }

const DcgmMetricEntry* FindDcgmMetric(std::string_view name) {
  if (name.empty()) return nullptr;
  for (const DcgmMetricEntry& entry : kCatalog)
    if (entry.field == name || entry.legacy_name == name) return &entry;
  return nullptr;
}

bool IsDcgmMetricName(std::string_view name) { return StartsWith(name, "DCGM_") || StartsWith(name, "dcgm_"); }

bool IsIntegerLiteral(std::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

bool IsDcgmBlank(std::string_view value_text, double value) {
  if (!IsIntegerLiteral(value_text)) return value >= kDcgmFp64Blank;
  if (value_text[0] == '-') return false;
  if (value_text[0] == '+') value_text.remove_prefix(1);
  uint64_t parsed = 0;
  auto result = std::from_chars(value_text.data(), value_text.data() + value_text.size(), parsed);
  if (result.ec == std::errc::result_out_of_range) return true;  // beyond uint64: above every sentinel
  return result.ec == std::errc() && parsed >= kDcgmInt64Blank;
}

}  // namespace kraken::prometheus
