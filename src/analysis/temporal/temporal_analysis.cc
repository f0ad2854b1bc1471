#include "analysis/temporal/temporal_analysis.h"

#include <algorithm>
#include <cmath>

#include "base/text.h"
#include "model/metrics.h"

namespace kraken::temporal {
namespace {

constexpr size_t kShortPodId = 8;  // an MD5 prefix long enough to tell 200 pods apart

std::string Label(const SeriesEntity& e, const char* key) {
  auto it = e.labels.find(key);
  return it == e.labels.end() ? "" : it->second;
}

std::string EntityName(const Series& s) {
  const SeriesEntity& e = s.entity;
  std::string name;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!name.empty()) name += " ";
    name += part;
  };
  if (!Label(e, "vc").empty()) add(Label(e, "vc"));
  if (!Label(e, "sequence").empty()) add(Label(e, "sequence"));
  if (!Label(e, "job").empty()) add(Label(e, "job"));
  if (!Label(e, "worker").empty()) add("worker " + Label(e, "worker"));
  if (!e.pod.empty()) add("pod " + e.pod.substr(0, kShortPodId));
  if (!Label(e, "request_type").empty()) add(Label(e, "request_type"));
  if (e.gpu_index >= 0) add("gpu " + std::to_string(e.gpu_index));
  if (e.gpu_instance_id >= 0) add("MIG " + std::to_string(e.gpu_instance_id));
  if (e.pid >= 0) add("pid " + std::to_string(e.pid));
  if (!e.hostname.empty()) add(e.hostname);
  return name;
}

}  // namespace

std::optional<Horizon> ParseHorizon(std::string_view text) {
  text = Trim(text);
  struct Unit {
    std::string_view suffix;
    int64_t scale;
    SampleAxis axis;
  };
  static constexpr Unit kUnits[] = {
      {"it", 1, SampleAxis::kIteration},
      {"w", 7 * 86'400'000'000'000, SampleAxis::kTimeNs},
      {"d", 86'400'000'000'000, SampleAxis::kTimeNs},
      {"h", 3'600'000'000'000, SampleAxis::kTimeNs},
      {"m", 60'000'000'000, SampleAxis::kTimeNs},
      {"s", 1'000'000'000, SampleAxis::kTimeNs},
  };
  for (const Unit& unit : kUnits) {
    if (!EndsWith(text, unit.suffix)) continue;
    auto amount = ParseDouble(text.substr(0, text.size() - unit.suffix.size()));
    if (!amount || !std::isfinite(*amount) || *amount <= 0 || *amount > 1e6) return std::nullopt;
    double scaled = *amount * static_cast<double>(unit.scale);
    if (scaled < 1 || scaled > 9e18) return std::nullopt;
    return Horizon{std::string(text), std::llround(scaled), unit.axis};
  }
  return std::nullopt;
}

std::string SeriesName(const Series& s) {
  std::string field = s.metric == Metric::kOther ? s.source_name : std::string(GetMetricInfo(s.metric).name);
  std::string entity = EntityName(s);
  return entity.empty() ? field : entity + "/" + field;
}

TemporalReport AnalyzeTemporal(const Series& series, const TemporalOptions& options) {
  TemporalReport report;
  report.name = SeriesName(series);
  report.axis = series.axis;
  report.unit = series.metric == Metric::kOther ? Label(series.entity, "unit")
                                                 : std::string(GetMetricInfo(series.metric).unit);
  auto grid = ResampleToGrid(series.samples, options.grid);
  if (!grid.ok()) {
    report.error = grid.status().message();
    return report;
  }
  report.grid = std::move(grid).value();

  PeriodicityOptions periodicity = options.periodicity;
  if (series.axis == SampleAxis::kIteration) {
    // No clock: no day to align to, no week to stop at.
    periodicity.calendar_unit = 0;
    periodicity.max_period = 0;
  }
  report.periodicity = DetectPeriodicity(report.grid, periodicity);

  std::vector<HorizonRequest> requests;
  for (const Horizon& h : options.horizons) {
    HorizonRequest request;
    request.label = h.label;
    if (report.periodicity.verdict == PeriodVerdict::kTooSparse) {
      request.reason = "too sparse to forecast: most grid points would be interpolated";
    } else if (h.axis != series.axis) {
      request.reason = series.axis == SampleAxis::kIteration ? "series counts iterations, not time"
                                                            : "horizon counts iterations, series counts time";
    } else {
      request.steps = static_cast<size_t>(std::llround(static_cast<double>(h.amount) /
                                                       static_cast<double>(report.grid.step)));
    }
    requests.push_back(request);
  }
  RegularGrid head = report.grid;
  size_t test = static_cast<size_t>(std::ceil(static_cast<double>(head.size()) * options.forecast.test_fraction));
  size_t train = head.size() - std::min(test, head.size());
  head.values.resize(train);
  head.observed.resize(train);
  head.filled_points = 0;
  for (uint8_t o : head.observed) head.filled_points += o == 0;
  if (train >= 2) report.training_periodicity = DetectPeriodicity(head, periodicity);
  const PeriodicityResult& used = report.training_periodicity;
  size_t period = used.verdict == PeriodVerdict::kPeriodic ? used.period_points * used.coarsen_factor : 0;
  report.forecast = EvaluateForecasts(report.grid, period, requests, options.forecast);
  return report;
}

}  // namespace kraken::temporal
