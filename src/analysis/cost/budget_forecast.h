// The budget alert on the projected month (docs/cost.md): each team's allocation over the
// chargeback range as a series (GPUs held and their price per hour at every query step),
// forecast with the forecaster of `kraken temporal --forecast` (AnalyzeTemporal chooses
// the method on rolling origins, ComputeForecastPath gives the values and intervals), and
// the forecast's mean rate over the horizon held for a 30-day month.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cost/chargeback.h"
#include "analysis/temporal/temporal_analysis.h"

namespace kraken::cost {

// One team's allocation at every query step; a step none of its GPUs answered holds 0.
struct AllocationRate {
  std::vector<int64_t> times_s;
  std::vector<double> gpus_held;     // MIG slices count as their share of the GPU
  std::vector<double> usd_per_hour;  // those GPUs' price per hour (unpriced models: 0)
};

struct TeamAllocationRates {
  std::map<std::string, AllocationRate> teams;
  AllocationRate total;
};

// Per team and in total, at the steps start_s + k step_s, k < points (the indices of
// AllocatedGpu::answered_steps).
TeamAllocationRates AllocationRates(const std::vector<AllocatedGpu>& gpus, int64_t start_s,
                                                      int64_t step_s, int64_t points,
                                                      const std::map<std::string, double>& usd_per_gpu_hour_by_model,
                                                      std::optional<double> default_usd_per_gpu_hour);

// The month (30 days) at the forecast's mean rate over `horizon`; the bounds hold every
// lead time at its 2.5 % / 97.5 % quantile, as if the forecast's error persisted all month.
MonthForecast ForecastMonth(const AllocationRate& rate, const temporal::Horizon& horizon);

// Teams forecast at most (the costliest); the others say why not.
inline constexpr size_t kMaxForecastTeams = 50;

// Sets `forecast` on the costliest kMaxForecastTeams teams of `charge` and on its total.
void AttachMonthForecasts(Chargeback* charge, const TeamAllocationRates& rates,
                          const temporal::Horizon& horizon);

}  // namespace kraken::cost
