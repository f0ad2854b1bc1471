// `kraken temporal --forecast H`: the forecast values of each series with their
// prediction intervals, as a table or one JSON document (docs/temporal.md).
#pragma once

#include <string>
#include <vector>

#include "analysis/temporal/forecast_path.h"
#include "analysis/temporal/temporal_analysis.h"

namespace kraken {

struct ForecastedSeries {
  std::string source;
  const temporal::TemporalReport* report = nullptr;
  std::string horizon;        // as requested
  std::string reason;         // why there is no forecast (empty when there is one)
  temporal::ForecastPath path;
};

std::string RenderForecastText(const std::vector<ForecastedSeries>& series);
std::string RenderForecastJson(const std::vector<ForecastedSeries>& series);

}  // namespace kraken
