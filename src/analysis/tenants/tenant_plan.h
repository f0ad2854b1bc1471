// Multi-tenant allocation (`kraken plan tenants`, Python MultiTenancyPlanner): tenants'
// workloads with SLAs (p99 latency for inference, a minimum share of solo throughput for
// training) placed on the available GPUs (whole, shared by time-slicing or MPS, or in MIG
// slices where allowed), every SLA checked with the co-location model
// (analysis/colocate) on the GPU it would run on, and why (docs/tenants.md).
#pragma once

#include <string>
#include <vector>

#include "model/colocation.h"
#include "model/device.h"
#include "model/workload_demand.h"

namespace kraken::tenants {

struct TenantWorkload {
  std::string tenant;
  std::string name;
  WorkloadDemand demand;
  std::string kind;             // inference or training
  double p99_ms = 0;            // inference SLA; 0 = none
  double rate_per_s = 0;        // offered requests per second (inference)
  double min_throughput = 0;    // training SLA: share of its throughput alone (0..1); 0 = none
};

struct AvailableGpu {
  std::string name;
  const DeviceSpec* spec = nullptr;
  bool mig_allowed = false;
  double usd_per_hour = 0;  // for the cost objective; 0 = unknown
  bool price_given = false; // by the user rather than the price catalog
};

enum class Objective { kCost, kPerformance, kBalanced };

struct WorkloadOutcome {
  int gpu = -1;                 // index into the GPUs; -1 = not placed
  std::string sharing;          // "alone", "timeslice", "mps 40%", "mig 3g"
  double slowdown = 1;          // vs alone on the GPU it runs on
  double speed_vs_profiled = 1; // roofline speed of that GPU vs the profiled one
  double p99_ms = 0;            // predicted (inference with a rate), 0 = not predicted
  bool sla_ok = false;
  std::string sla;              // the SLA and the predicted figure, in words
  std::string why;
};

struct GpuOutcome {
  std::vector<size_t> workloads;
  ModePrediction prediction;    // how they share it
};

struct TenantPlan {
  Objective objective = Objective::kBalanced;
  std::vector<WorkloadOutcome> workloads;  // parallel to the input
  std::vector<GpuOutcome> gpus;            // parallel to the GPUs
  int gpus_used = 0;
  double usd_per_hour = 0;                 // GPUs used
  bool all_placed = false;
  std::vector<std::string> notes;
};

TenantPlan PlanTenants(const std::vector<TenantWorkload>& workloads, const std::vector<AvailableGpu>& gpus,
                       Objective objective);

}  // namespace kraken::tenants
