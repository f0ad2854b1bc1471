#include "analysis/cost/budget_forecast.h"

#include <algorithm>

#include "analysis/temporal/forecast_path.h"
#include "model/series.h"

namespace kraken::cost {
namespace {

constexpr double kHoursPerMonth = 30 * 24;

struct RateForecast {
  std::string reason;  // empty when forecast
  std::string method;
  int64_t period_s = 0;
  double mean = 0, low = 0, high = 0;  // per hour, over the horizon
  double coverage95 = 0;
};

RateForecast NoForecast(std::string reason) {
  RateForecast out;
  out.reason = std::move(reason);
  return out;
}

// The same path as `kraken temporal --forecast` (app/temporal_request.cc): the horizon's
// evaluation chooses the parameters, the path gives values and 95 % intervals.
RateForecast ForecastRate(const std::vector<int64_t>& times_s, const std::vector<double>& values,
                          const temporal::Horizon& horizon) {
  Series series;
  series.axis = SampleAxis::kTimeNs;
  series.source_name = "allocation";
  series.samples.reserve(times_s.size());
  for (size_t i = 0; i < times_s.size(); ++i) series.samples.push_back({times_s[i] * 1'000'000'000, values[i]});
  temporal::TemporalOptions options;
  options.horizons = {horizon};
  temporal::TemporalReport report = temporal::AnalyzeTemporal(series, options);
  RateForecast out;
  if (!report.error.empty()) return NoForecast(report.error);
  if (report.forecast.horizons.empty()) return NoForecast("the horizon does not apply to this series");
  const temporal::HorizonEvaluation& h = report.forecast.horizons[0];
  if (!h.evaluated) return NoForecast(h.reason.empty() ? "the horizon does not apply to this series" : h.reason);
  temporal::ForecastPath path = temporal::ComputeForecastPath(report.grid, h.steps, h.params);
  if (path.points.empty()) return NoForecast("too little history for an interval at any lead time");
  for (const temporal::ForecastPoint& p : path.points) {
    out.mean += p.value;
    out.low += p.lo95;
    out.high += p.hi95;
  }
  const double n = static_cast<double>(path.points.size());
  // An allocation is never negative; the interval always holds the point.
  out.mean = std::max(0.0, out.mean / n);
  out.low = std::clamp(out.low / n, 0.0, out.mean);
  out.high = std::max(out.high / n, out.mean);
  out.method = temporal::ForecastMethodName(h.params.method);
  bool seasonal = h.params.method == temporal::ForecastMethod::kSeasonalMean ||
                  h.params.method == temporal::ForecastMethod::kSeasonalNaive;
  if (seasonal) out.period_s = static_cast<int64_t>(h.params.period) * report.grid.step / 1'000'000'000;
  out.coverage95 = path.coverage95;
  return out;
}

}  // namespace

TeamAllocationRates AllocationRates(const std::vector<AllocatedGpu>& gpus, int64_t start_s,
                                                      int64_t step_s, int64_t points,
                                                      const std::map<std::string, double>& usd_per_gpu_hour_by_model,
                                                      std::optional<double> default_usd_per_gpu_hour) {
  TeamAllocationRates rates;
  if (step_s <= 0 || points <= 0) return rates;
  auto blank = [&] {
    AllocationRate r;
    r.gpus_held.assign(static_cast<size_t>(points), 0.0);
    r.usd_per_hour.assign(static_cast<size_t>(points), 0.0);
    for (int64_t k = 0; k < points; ++k) r.times_s.push_back(start_s + k * step_s);
    return r;
  };
  rates.total = blank();
  for (const AllocatedGpu& g : gpus) {
    double price = default_usd_per_gpu_hour.value_or(0);
    auto it = usd_per_gpu_hour_by_model.find(g.gpu_model);
    if (it != usd_per_gpu_hour_by_model.end()) price = it->second;
    auto team = rates.teams.find(g.team);
    if (team == rates.teams.end()) team = rates.teams.emplace(g.team, blank()).first;
    for (size_t k = 0; k < g.answered_steps.size() && k < static_cast<size_t>(points); ++k) {
      if (!g.answered_steps[k]) continue;
      for (AllocationRate* r : {&team->second, &rates.total}) {
        r->gpus_held[k] += g.share_of_gpu;
        r->usd_per_hour[k] += g.share_of_gpu * price;
      }
    }
  }
  return rates;
}

MonthForecast ForecastMonth(const AllocationRate& rate, const temporal::Horizon& horizon) {
  MonthForecast out;
  out.horizon = horizon.label;
  RateForecast usd = ForecastRate(rate.times_s, rate.usd_per_hour, horizon);
  if (!usd.reason.empty()) {
    out.reason = usd.reason;
    return out;
  }
  RateForecast gpus = ForecastRate(rate.times_s, rate.gpus_held, horizon);
  out.available = true;
  out.method = usd.method;
  out.period_s = usd.period_s;
  out.usd = usd.mean * kHoursPerMonth;
  out.low_usd = usd.low * kHoursPerMonth;
  out.high_usd = usd.high * kHoursPerMonth;
  out.coverage95 = usd.coverage95;
  if (gpus.reason.empty()) {
    out.gpu_hours = gpus.mean * kHoursPerMonth;
    out.low_gpu_hours = gpus.low * kHoursPerMonth;
    out.high_gpu_hours = gpus.high * kHoursPerMonth;
  }
  return out;
}

void AttachMonthForecasts(Chargeback* charge, const TeamAllocationRates& rates,
                          const temporal::Horizon& horizon) {
  // charge->teams is sorted by cost, highest first.
  for (size_t i = 0; i < charge->teams.size(); ++i) {
    TeamCharge& team = charge->teams[i];
    MonthForecast none;
    none.horizon = horizon.label;
    auto rate = rates.teams.find(team.team);
    if (i >= kMaxForecastTeams) {
      none.reason = "only the " + std::to_string(kMaxForecastTeams) + " costliest teams are forecast";
      team.forecast = none;
    } else if (rate == rates.teams.end()) {
      none.reason = "no allocation series";
      team.forecast = none;
    } else {
      team.forecast = ForecastMonth(rate->second, horizon);
    }
  }
  if (!rates.total.times_s.empty()) charge->total.forecast = ForecastMonth(rates.total, horizon);
}

}  // namespace kraken::cost
