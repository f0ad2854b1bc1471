#include "analysis/tenants/tenant_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/workload_inputs.h"
#include "analysis/cost/instance_recommend.h"
#include "model/device_catalog.h"
#include "model/mig_catalog.h"

namespace kraken::tenants {
namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Run time on `gpu` relative to the GPU the workload was profiled on (roofline; 1 when
// either is unknown).
double TimeRatioOn(const TenantWorkload& w, const AvailableGpu& gpu) {
  const DeviceSpec* from = FindDeviceSpec(w.demand.device_id);
  if (from == nullptr || gpu.spec == nullptr || from->id == gpu.spec->id) return 1;
  cost::MeasuredDemand m = cost::MeasuredDemandFrom(w.name, {w.demand}, std::nullopt);
  std::string basis;
  return cost::RooflineTimeRatio(m, *from, *gpu.spec, &basis);
}

std::string SharingOf(const ModePrediction& mode, size_t i, size_t group_size) {
  if (group_size == 1) return "alone";
  if (mode.mode == SharingMode::kMps && i < mode.sm_shares.size() && mode.sm_shares[i] < 1)
    return "mps " + Fixed(mode.sm_shares[i] * 100, 0) + "% SMs";
  if (mode.mode == SharingMode::kMig && i < mode.mig_profiles.size()) return "mig " + mode.mig_profiles[i];
  return SharingModeName(mode.mode);
}

// The SLA of `w` given its predicted figures; sets outcome.sla_ok and outcome.sla.
void CheckSla(const TenantWorkload& w, const WorkloadPrediction& p, WorkloadOutcome& out) {
  double throughput = 1 / (out.slowdown / out.speed_vs_profiled);
  out.p99_ms = p.latency_predicted && std::isfinite(p.p99_colocated_ms) ? p.p99_colocated_ms / out.speed_vs_profiled
                                                                          : 0;
  out.sla_ok = p.fits_memory;
  if (!p.fits_memory) {
    out.sla = "does not fit the GPU's memory";
    return;
  }
  if (w.p99_ms > 0) {
    if (p.overloaded || (p.latency_predicted && !std::isfinite(p.p99_colocated_ms))) {
      out.sla_ok = false;
      out.sla = "p99 target " + Fixed(w.p99_ms, 1) + " ms: overloaded (requests queue without bound)";
    } else if (!p.latency_predicted) {
      out.sla_ok = false;
      out.sla = "p99 target " + Fixed(w.p99_ms, 1) + " ms: the profile gives no request time to predict it";
    } else {
      out.sla_ok = out.p99_ms <= w.p99_ms;
      out.sla = "p99 " + Fixed(out.p99_ms, 2) + " ms " + (out.sla_ok ? "<=" : ">") + " target " +
                Fixed(w.p99_ms, 1) + " ms";
    }
  } else if (w.min_throughput > 0) {
    out.sla_ok = throughput >= w.min_throughput;
    out.sla = "throughput " + Fixed(throughput, 2) + "x of alone on its profiled GPU " + (out.sla_ok ? ">=" : "<") +
              " minimum " + Fixed(w.min_throughput, 2);
  } else {
    out.sla = "no SLA; throughput " + Fixed(throughput, 2) + "x of alone on its profiled GPU";
  }
}

struct GroupChoice {
  ModePrediction mode;
  std::vector<WorkloadOutcome> outcomes;  // parallel to the group
  double penalty_sum = 0;                 // sum of slowdown x time ratio
  bool ok = false;
  std::string failure;                    // the best mode's first broken SLA when !ok
};

GroupChoice EvaluateGroup(const std::vector<TenantWorkload>& all, const std::vector<size_t>& group,
                          const AvailableGpu& gpu, int gpu_index) {
  ColocateOptions options;
  options.device = gpu.spec;
  options.modes = {SharingMode::kTimeSlice};
  if (group.size() > 1) options.modes.push_back(SharingMode::kMps);
  if (group.size() > 1 && gpu.mig_allowed && gpu.spec != nullptr && FindMigGeometry(gpu.spec->id) != nullptr)
    options.modes.push_back(SharingMode::kMig);
  std::vector<ColocationWorkload> ws;
  for (size_t i : group) {
    WorkloadSetup setup;
    setup.request_rate_per_s = all[i].rate_per_s;
    ws.push_back(BuildColocationWorkload(all[i].demand, setup, options.params));
  }
  ColocationReport report = PredictColocation(ws, options);
  GroupChoice best;
  double best_worst = INFINITY;
  for (const ModePrediction& mode : report.modes) {
    if (!mode.feasible || mode.workloads.size() != group.size()) continue;
    GroupChoice c;
    c.mode = mode;
    c.ok = true;
    double worst = 0;
    for (size_t k = 0; k < group.size(); ++k) {
      WorkloadOutcome o;
      o.gpu = gpu_index;
      o.sharing = SharingOf(mode, k, group.size());
      o.slowdown = mode.workloads[k].slowdown;
      o.speed_vs_profiled = 1 / TimeRatioOn(all[group[k]], gpu);
      CheckSla(all[group[k]], mode.workloads[k], o);
      if (!o.sla_ok && c.ok) {
        c.ok = false;
        c.failure = all[group[k]].name + " " + o.sla + " (" + SharingModeName(mode.mode) + ")";
      }
      double penalty = o.slowdown / o.speed_vs_profiled;
      c.penalty_sum += penalty;
      worst = std::max(worst, penalty);
      c.outcomes.push_back(std::move(o));
    }
    // Modes meeting every SLA first, then the lowest worst penalty.
    if ((c.ok && !best.ok) || (c.ok == best.ok && worst < best_worst)) {
      best = std::move(c);
      best_worst = worst;
    }
  }
  if (report.modes.empty()) best.failure = "no sharing mode could be predicted";
  return best;
}

double Score(Objective objective, double delta, bool opened, double price_share) {
  switch (objective) {
    case Objective::kCost: return (opened ? 1000 * (1 + price_share) : 0) + delta;
    case Objective::kPerformance: return delta + 0.001 * price_share;
    case Objective::kBalanced: break;
  }
  return delta + (opened ? 0.5 + price_share : 0);
}

std::string ObjectiveReason(Objective objective, bool opened) {
  switch (objective) {
    case Objective::kCost:
      return opened ? "cost: no GPU in use could take it within every SLA; the cheapest one that could"
                    : "cost: shares a GPU already in use within every SLA";
    case Objective::kPerformance: return "performance: the GPU where it and its co-runners lose the least speed";
    case Objective::kBalanced: break;
  }
  return opened ? "balanced: a GPU of its own was worth its price against the slowdown of sharing"
                : "balanced: sharing costs less slowdown than another GPU is worth";
}

// Workloads with SLAs first, then the busiest first: they are the hardest to place.
std::vector<size_t> PlacementOrder(const std::vector<TenantWorkload>& ws) {
  std::vector<size_t> order(ws.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    bool sa = ws[a].p99_ms > 0 || ws[a].min_throughput > 0, sb = ws[b].p99_ms > 0 || ws[b].min_throughput > 0;
    if (sa != sb) return sa;
    return ws[a].demand.gpu_busy.mean > ws[b].demand.gpu_busy.mean;
  });
  return order;
}

}  // namespace

TenantPlan PlanTenants(const std::vector<TenantWorkload>& workloads, const std::vector<AvailableGpu>& gpus,
                       Objective objective) {
  TenantPlan plan;
  plan.objective = objective;
  plan.workloads.resize(workloads.size());
  plan.gpus.resize(gpus.size());
  std::vector<GroupChoice> current(gpus.size());
  double max_price = 0;
  for (const AvailableGpu& g : gpus) max_price = std::max(max_price, g.usd_per_hour);
  for (size_t w : PlacementOrder(workloads)) {
    std::optional<size_t> best_gpu;
    GroupChoice best_choice;
    double best_score = INFINITY;
    std::string failure;
    for (size_t g = 0; g < gpus.size(); ++g) {
      std::vector<size_t> group = plan.gpus[g].workloads;
      group.push_back(w);
      GroupChoice c = EvaluateGroup(workloads, group, gpus[g], static_cast<int>(g));
      if (!c.ok) {
        if (failure.empty()) failure = gpus[g].name + ": " + c.failure;
        continue;
      }
      double price_share = max_price > 0 ? gpus[g].usd_per_hour / max_price : 0;
      double score = Score(objective, c.penalty_sum - current[g].penalty_sum, group.size() == 1, price_share);
      if (score < best_score) {
        best_score = score;
        best_gpu = g;
        best_choice = std::move(c);
      }
    }
    if (!best_gpu) {
      plan.workloads[w].why = "not placed: no GPU meets its SLA and its co-runners' (first refusal: " + failure + ")";
      continue;
    }
    bool opened = plan.gpus[*best_gpu].workloads.empty();
    plan.gpus[*best_gpu].workloads.push_back(w);
    plan.workloads[w].why = ObjectiveReason(objective, opened);
    current[*best_gpu] = std::move(best_choice);
  }
  plan.all_placed = true;
  for (size_t g = 0; g < gpus.size(); ++g) {
    const GpuOutcome& gpu = plan.gpus[g];
    if (gpu.workloads.empty()) continue;
    ++plan.gpus_used;
    plan.usd_per_hour += gpus[g].usd_per_hour;
    plan.gpus[g].prediction = current[g].mode;
    for (size_t k = 0; k < gpu.workloads.size(); ++k) {
      std::string why = plan.workloads[gpu.workloads[k]].why;
      plan.workloads[gpu.workloads[k]] = current[g].outcomes[k];
      plan.workloads[gpu.workloads[k]].why = why;
    }
  }
  for (const WorkloadOutcome& o : plan.workloads) plan.all_placed = plan.all_placed && o.gpu >= 0;
  for (const AvailableGpu& g : gpus)
    if (g.usd_per_hour <= 0)
      plan.notes.push_back(g.name + " (" + (g.spec ? g.spec->id : std::string("?")) +
                           "): no price in the catalog, counted $0/h (give MODEL@USD in --gpus)");
  plan.notes.push_back("slowdowns and p99 come from the co-location model (docs/colocation.md) on each GPU; "
                       "speeds between GPU models from the roofline (docs/cost.md)");
  return plan;
}

}  // namespace kraken::tenants
