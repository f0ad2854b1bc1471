// `kraken cost recommend`: which cloud instances fit a workload's measured demand, ranked
// by what one hour of its measured work costs there (docs/cost.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/cost/price_catalog.h"
#include "model/device.h"
#include "model/workload_demand.h"

namespace kraken::cost {

inline constexpr double kHoursPerMonth = 730;

// What a workload was measured to need, from its profile's demands.
struct MeasuredDemand {
  std::string name;
  std::string workload_type;  // training, inference, unknown
  std::string gpu_model;      // device id it ran on; "" unknown
  int gpus = 1;               // GPUs it used
  double gpu_busy = 0;        // mean fraction of wall time a kernel ran (0..1)
  bool busy_measured = false;
  bool memory_measured = false;
  // Per GPU. Not measured: GPUs with at least the memory of the one it ran on fit (any GPU
  // when that one is unknown).
  double memory_peak_bytes = 0;
  double compute_share = 0;      // of kernel time, compute-bound kernels
  double memory_share = 0;       // of kernel time, memory-bound kernels
  std::string bound;             // compute, memory, latency, communication or none
  std::optional<double> step_time_s;  // median step, when the trace has steps
};

// One workload's demand from the demands its profile yields (one per GPU for samplers).
MeasuredDemand MeasuredDemandFrom(const std::string& name, const std::vector<WorkloadDemand>& demands,
                                  std::optional<double> step_time_s);

struct RecommendOptions {
  double budget_usd_per_month = 0;  // 0 = no budget
  bool spot = false;
  double memory_headroom = 0.10;    // the GPU must hold the peak x (1 + headroom)
  std::string current_instance;     // "" = the cheapest instance of the measured GPU model
};

struct Candidate {
  InstancePrice instance;
  bool spot_price = false;       // the price used is the spot price
  int replicas = 1;              // copies of the workload the instance holds
  double time_ratio = 1;         // run time there / measured run time (< 1 faster)
  std::string basis;             // "same GPU" or the roofline terms
  double usd_per_hour = 0;       // the instance
  double usd_per_work_hour = 0;  // one hour of the measured work, the whole instance rented
  double usd_per_month = 0;      // the instance, always on
  std::optional<double> savings_fraction;  // vs the current instance, per unit of work
  std::optional<double> savings_usd_per_month;  // the measured work for a month, vs current
  bool current = false;
};

struct Recommendation {
  MeasuredDemand demand;
  std::optional<Candidate> current;  // absent when the GPU model is unknown or unpriced
  std::string current_basis;         // how the current instance was chosen
  std::vector<Candidate> ranked;     // fit and within budget, cheapest work first
  int rejected_memory = 0;           // instances whose GPU memory is too small
  int rejected_gpus = 0;             // fewer GPUs than the workload used
  int rejected_budget = 0;
};

// The time the measured work takes on `to` relative to `from` (1 = same): the GPU-busy
// part scales by the peak ratios of the roofline (compute-bound kernels by the dense
// 16-bit tensor or FP32 peak, memory-bound ones by DRAM bandwidth), the rest does not.
double RooflineTimeRatio(const MeasuredDemand& demand, const DeviceSpec& from, const DeviceSpec& to,
                         std::string* basis);

Result<Recommendation> RecommendInstances(const MeasuredDemand& demand, const std::vector<InstancePrice>& catalog,
                                          const std::vector<InstancePrice>& all_prices,
                                          const RecommendOptions& options);

}  // namespace kraken::cost
