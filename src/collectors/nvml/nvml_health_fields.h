// The health fields the reader asks for on the slow cadence (kHealthFieldRequests,
// nvml_reader.h, is derived from this list): each field's scope, its canonical metric and
// the source name its series carry.
#pragma once

#include <array>
#include <cstdint>

#include "collectors/nvml/nvml_api.h"
#include "model/metrics.h"

namespace kraken::nvml {

struct HealthFieldMetric {
  uint32_t field_id;
  uint32_t scope_id;  // NVML_NVLINK_SCOPE_ALL_LINKS for the NVLink totals, else 0
  Metric metric;
  const char* source_name;
};

inline constexpr std::array<HealthFieldMetric, 11> kHealthFieldMetrics = {{
    {NVML_FI_DEV_REMAPPED_COR, 0, Metric::kRemappedRowsCorrectableCount, "NVML_FI_DEV_REMAPPED_COR"},
    {NVML_FI_DEV_REMAPPED_UNC, 0, Metric::kRemappedRowsUncorrectableCount, "NVML_FI_DEV_REMAPPED_UNC"},
    {NVML_FI_DEV_REMAPPED_PENDING, 0, Metric::kRemappedRowsPending, "NVML_FI_DEV_REMAPPED_PENDING"},
    {NVML_FI_DEV_REMAPPED_FAILURE, 0, Metric::kRemappedRowsFailure, "NVML_FI_DEV_REMAPPED_FAILURE"},
    {NVML_FI_DEV_RETIRED_SBE, 0, Metric::kRetiredPagesSbeCount, "NVML_FI_DEV_RETIRED_SBE"},
    {NVML_FI_DEV_RETIRED_DBE, 0, Metric::kRetiredPagesDbeCount, "NVML_FI_DEV_RETIRED_DBE"},
    {NVML_FI_DEV_RETIRED_PENDING, 0, Metric::kRetiredPagesPending, "NVML_FI_DEV_RETIRED_PENDING"},
    {NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, NVML_NVLINK_SCOPE_ALL_LINKS, Metric::kNvlinkCrcFlitErrorCount,
     "NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL"},
    {NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL, NVML_NVLINK_SCOPE_ALL_LINKS, Metric::kNvlinkCrcDataErrorCount,
     "NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL"},
    {NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, NVML_NVLINK_SCOPE_ALL_LINKS, Metric::kNvlinkReplayErrorCount,
     "NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL"},
    {NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL, NVML_NVLINK_SCOPE_ALL_LINKS, Metric::kNvlinkRecoveryErrorCount,
     "NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL"},
}};

// The entry of `field_id`; nullptr when it is not a health field.
constexpr const HealthFieldMetric* FindHealthFieldMetric(uint32_t field_id) {
  for (const HealthFieldMetric& h : kHealthFieldMetrics)
    if (h.field_id == field_id) return &h;
  return nullptr;
}

}  // namespace kraken::nvml
