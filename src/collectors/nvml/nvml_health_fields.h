// The canonical metric of each health field the reader asks for on the slow cadence
// (kHealthFieldRequests, nvml_reader.h), with the source name its series carry.
#pragma once

#include <array>
#include <cstdint>

#include "collectors/nvml/nvml_api.h"
#include "model/metrics.h"

namespace kraken::nvml {

struct HealthFieldMetric {
  uint32_t field_id;
  Metric metric;
  const char* source_name;
};

inline constexpr std::array<HealthFieldMetric, 11> kHealthFieldMetrics = {{
    {NVML_FI_DEV_REMAPPED_COR, Metric::kRemappedRowsCorrectableCount, "NVML_FI_DEV_REMAPPED_COR"},
    {NVML_FI_DEV_REMAPPED_UNC, Metric::kRemappedRowsUncorrectableCount, "NVML_FI_DEV_REMAPPED_UNC"},
    {NVML_FI_DEV_REMAPPED_PENDING, Metric::kRemappedRowsPending, "NVML_FI_DEV_REMAPPED_PENDING"},
    {NVML_FI_DEV_REMAPPED_FAILURE, Metric::kRemappedRowsFailure, "NVML_FI_DEV_REMAPPED_FAILURE"},
    {NVML_FI_DEV_RETIRED_SBE, Metric::kRetiredPagesSbeCount, "NVML_FI_DEV_RETIRED_SBE"},
    {NVML_FI_DEV_RETIRED_DBE, Metric::kRetiredPagesDbeCount, "NVML_FI_DEV_RETIRED_DBE"},
    {NVML_FI_DEV_RETIRED_PENDING, Metric::kRetiredPagesPending, "NVML_FI_DEV_RETIRED_PENDING"},
    {NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, Metric::kNvlinkCrcFlitErrorCount,
     "NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL"},
    {NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL, Metric::kNvlinkCrcDataErrorCount,
     "NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL"},
    {NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL, Metric::kNvlinkReplayErrorCount,
     "NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL"},
    {NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL, Metric::kNvlinkRecoveryErrorCount,
     "NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL"},
}};

// The entry of `field_id`; nullptr when it is not a health field.
constexpr const HealthFieldMetric* FindHealthFieldMetric(uint32_t field_id) {
  for (const HealthFieldMetric& h : kHealthFieldMetrics)
    if (h.field_id == field_id) return &h;
  return nullptr;
}

}  // namespace kraken::nvml
