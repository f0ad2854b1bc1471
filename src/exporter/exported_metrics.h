// Which canonical metrics the agent exports, under which dcgm-exporter name, type and
// HELP text. Names, types and units come from the DCGM catalog the importers use
// (model/dcgm_metric_catalog.h), so that kraken reads back exactly what it
// writes; HELP texts are dcgm-exporter's own where its counters CSVs have one.
#pragma once

#include <span>
#include <string_view>

#include "model/dcgm_metric_catalog.h"
#include "model/metrics.h"

namespace kraken::exporter {

struct ExportedMetric {
  Metric metric;
  const prometheus::DcgmMetricEntry* dcgm;  // name, Prometheus type, unit scale
  std::string_view help;
};

// In exposition order (dcgm-exporter's default-counters.csv order where it has them).
std::span<const ExportedMetric> ExportedMetrics();

// The entry for `metric`, nullptr when kraken does not export it (processes, allocator).
const ExportedMetric* FindExportedMetric(Metric metric);

}  // namespace kraken::exporter
