// The one table of dcgm-exporter metric names: DCGM field name, the old dcgm-exporter
// 1.x name (etc/1.x-compatibility-metrics.csv), kraken's canonical metric and the factor
// that converts the exported unit to the canonical one. Both importers of this folder
// read names only through it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/metrics.h"

namespace kraken::prometheus {

// The Prometheus metric type dcgm-exporter declares in its "# TYPE" line.
enum class PromType { kGauge, kCounter };

struct DcgmMetricEntry {
  std::string_view field;        // "DCGM_FI_DEV_FB_USED": the metric name dcgm-exporter writes
  std::string_view legacy_name;  // "dcgm_fb_used"; empty when 1.x had no name for it
  Metric metric;                 // Metric::kOther: a known field with no canonical metric
  double scale;                  // exported value * scale = value in the canonical unit
  PromType type;                 // what the exporter declares (counters CSVs of dcgm-exporter)
};

// Every entry, in a stable order.
std::span<const DcgmMetricEntry> DcgmMetricCatalog();

// Looks up a DCGM field name or a 1.x name (exact spelling); nullptr when unknown.
const DcgmMetricEntry* FindDcgmMetric(std::string_view name);

// Whether `name` is a dcgm-exporter metric at all (DCGM_* or 1.x dcgm_*), known or not.
bool IsDcgmMetricName(std::string_view name);

// DCGM's "no value" sentinels (dcgm_structs.h). Integer fields use DCGM_INT64_BLANK and
// the codes just above it (+1 not found, +2 not supported, +3 no permission, ...);
// floating fields use DCGM_FP64_BLANK and the values above it.
inline constexpr uint64_t kDcgmInt64Blank = 0x7ffffffffffffff0ULL;  // 9223372036854775792
inline constexpr double kDcgmFp64Blank = 140737488355328.0;          // 2^47

// Whether a sample value is one of those sentinels. `value_text` decides which rule
// applies: DCGM prints int64 fields as integers and fp64 fields with decimals, so an
// integer energy counter above 2^47 mJ stays a number.
bool IsDcgmBlank(std::string_view value_text, double value);

// True when `text` is written as an integer (optional sign, digits only): DCGM prints
// its int64 fields this way and its fp64 fields with a decimal point.
bool IsIntegerLiteral(std::string_view text);

}  // namespace kraken::prometheus
