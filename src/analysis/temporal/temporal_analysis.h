// `kraken temporal` for one series: resample to a regular grid, look for a period, then
// score the seasonal (or, without a period, the non-seasonal) forecaster against its
// baseline at each requested horizon.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/temporal/forecast.h"
#include "analysis/temporal/periodicity.h"
#include "analysis/temporal/regular_grid.h"
#include "model/series.h"

namespace kraken::temporal {

// A forecast horizon as the user wrote it: an amount on one axis ("1h" is 3600e9 on the
// time axis, "500it" is 500 on the iteration axis). It applies only to series on that axis.
struct Horizon {
  std::string label;
  int64_t amount = 0;
  SampleAxis axis = SampleAxis::kTimeNs;
};

// "1h", "24h", "90m", "30s", "2d", "1w", "500it"; nullopt for anything else (or <= 0).
std::optional<Horizon> ParseHorizon(std::string_view text);

struct TemporalOptions {
  GridOptions grid;
  PeriodicityOptions periodicity;  // its time-axis settings are dropped for iteration axes
  ForecastOptions forecast;
  std::vector<Horizon> horizons = {{"1h", 3'600'000'000'000, SampleAxis::kTimeNs},
                                   {"24h", 86'400'000'000'000, SampleAxis::kTimeNs}};
};

struct TemporalReport {
  std::string name;  // SeriesName()
  SampleAxis axis = SampleAxis::kTimeNs;
  std::string unit;  // the series' unit when known ("%", "GPUs")
  std::string error;  // set when the series could not be put on a grid; the rest is empty
  RegularGrid grid;
  PeriodicityResult periodicity;  // on the whole series: what the report states
  // On the training head only: the period the forecaster uses, so that nothing of the
  // held-out tail leaks into the evaluated model. Usually the same as `periodicity`.
  PeriodicityResult training_periodicity;
  ForecastEvaluation forecast;
};

TemporalReport AnalyzeTemporal(const Series& series, const TemporalOptions& options = {});

// A short name that tells series of one profile apart: the entity (vc, pod, worker, job,
// gpu) and the field, e.g. "vc3sl/running_gpu_num", "pod 23b8eba9/gpu_util_pct".
std::string SeriesName(const Series& series);

}  // namespace kraken::temporal
