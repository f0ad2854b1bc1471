#include "model/metrics.h"

#include <array>

namespace kraken {
namespace {

constexpr std::array kMetricInfos = {
#define KRAKEN_METRIC_INFO(id, name, unit, help) MetricInfo{Metric::id, name, unit, help},
    KRAKEN_METRICS(KRAKEN_METRIC_INFO)
#undef KRAKEN_METRIC_INFO
};

}  // namespace

const MetricInfo& GetMetricInfo(Metric metric) { return kMetricInfos[static_cast<size_t>(metric)]; }

Metric MetricFromName(std::string_view name) {
  for (const auto& info : kMetricInfos)
    if (info.name == name) return info.metric;
  return Metric::kOther;
}

}  // namespace kraken
