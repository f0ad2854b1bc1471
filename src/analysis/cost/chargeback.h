// `kraken cost chargeback`: GPU-hours allocated to each team (a GPU, or a MIG slice of
// it, held by a pod) against the GPU-hours its pods kept busy (DCGM), priced per
// GPU-hour; the idle part's cost; budgets per team (docs/cost.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::cost {

// One GPU (or MIG instance) held by one pod, sampled every `step_s` of a range.
struct AllocatedGpu {
  std::string team;
  std::string namespace_name;
  std::string pod;
  std::string gpu;          // UUID (and GPU instance id)
  std::string gpu_model;    // device catalog id, "" unknown
  double share_of_gpu = 1;  // a MIG slice's share of the GPU's compute slices
  int64_t samples = 0;      // steps at which the series answered
  double busy_sum = 0;      // sum of the 0..1 busy values at those steps
  // With --forecast: per query step of the range, whether the series answered (a bit per
  // step: a month at 60 s is 5 KiB per GPU).
  std::vector<bool> answered_steps;
};

// The month projected through the temporal forecaster (budget_forecast.h): the team's
// allocation rate forecast over the next `horizon`, that rate held for 30 days.
struct MonthForecast {
  std::string horizon;  // "24h"
  bool available = false;
  std::string reason;   // why not, when !available
  std::string method;   // the forecaster's chosen method
  int64_t period_s = 0; // the daily (or other) period it used; 0 none
  double usd = 0, low_usd = 0, high_usd = 0;                    // 95 % interval
  double gpu_hours = 0, low_gpu_hours = 0, high_gpu_hours = 0;  // allocated
  double coverage95 = 0;  // back-test: share of held-out targets inside the 95 % interval
};

struct TeamCharge {
  std::string team;
  int pods = 0;
  double allocated_gpu_hours = 0;
  double used_gpu_hours = 0;
  double cost_usd = 0;
  double idle_cost_usd = 0;
  std::optional<double> budget_usd;         // per month
  std::optional<double> projected_month_usd;  // cost over the range scaled to 30 days
  std::optional<MonthForecast> forecast;      // with --forecast
  double utilization() const { return allocated_gpu_hours > 0 ? used_gpu_hours / allocated_gpu_hours : 0; }
};

struct Chargeback {
  int64_t range_s = 0;
  int64_t step_s = 0;
  std::vector<TeamCharge> teams;  // by cost, highest first
  TeamCharge total;
  std::vector<std::string> unpriced_models;  // GPU models without a price (charged 0)
};


Chargeback ComputeChargeback(const std::vector<AllocatedGpu>& gpus, int64_t range_s, int64_t step_s,
                             const std::map<std::string, double>& usd_per_gpu_hour_by_model,
                             std::optional<double> default_usd_per_gpu_hour,
                             const std::map<std::string, double>& budgets);

// A MIG profile's share of the GPU ("3g.20gb" -> 3/7); 1 for "" (the whole GPU).
double MigShareOfGpu(std::string_view profile);

// The budgets file: CSV with a header naming team and monthly_usd. Errors "FILE:LINE: ...".
Result<std::map<std::string, double>> ParseBudgets(std::string_view text, const std::string& origin);

}  // namespace kraken::cost
