#include "analysis/disagg/disagg_analysis.h"

#include <algorithm>
#include <cmath>

#include "analysis/mig/mig_plan.h"
#include "analysis/mig/slice_slowdown.h"
#include "base/text.h"
#include "base/text_table.h"
#include "model/mig_catalog.h"

namespace kraken::disagg {
namespace {

std::string Pct(double ratio) { return FormatFixed(100 * ratio, 1) + "%"; }

// What the strategy rules and impact models read, in one place.
struct RuleInputs {
  double u_mean = 0, u_p95 = 0;  // compute need (share of the GPU's SMs)
  double memory_share = 0;
  bool busy_measured = false;
  double busy = 0;               // fraction of wall time the GPU is busy
  double busy_high = 0;          // busiest tenth of the window
  double fill = 0, fill_hi = 1;  // SM share while busy: typical and worst
  double f_lo = 0, f_hi = 0;     // share of a GPU needed (mean / p95 compute vs memory)
  mig::SliceLoad slice_load;     // what the MIG slice slowdown model reads (busy and fill come from it)
};

RuleInputs Inputs(const DisaggResult& r, const WorkloadDemand& d) {
  RuleInputs in;
  in.u_mean = r.need.compute_mean;
  in.u_p95 = r.need.compute_p95;
  in.memory_share = r.need.memory_share;
  in.slice_load = mig::MeasureSliceLoad(d, r.need, r.temporal);
  in.busy_measured = in.slice_load.busy_measured;
  in.busy = in.slice_load.busy;
  in.busy_high = r.temporal.measured ? std::max(in.busy, r.temporal.busiest_tenth) : in.busy;
  in.fill = d.sm_fill > 0 ? d.sm_fill : in.busy > 0 ? std::min(1.0, in.u_mean / in.busy) : 1;
  in.fill_hi = in.slice_load.fill_hi;
  in.f_lo = std::max(in.u_mean, in.memory_share);
  in.f_hi = std::max(in.u_p95, in.memory_share);
  return in;
}

void Score(const DisaggOptions& o, DisaggResult* r) {
  Explanation e;
  double sum = 0, weights = 0;
  auto part = [&](const char* name, bool measured, double value, double weight) {
    if (measured) {
      sum += weight * value;
      weights += weight;
      ++r->parts_measured;
      e.Term(std::string(name) + " part", value, "ratio", "weight " + FormatFixed(weight, 2));
    } else {
      e.Assume(std::string(name) + " not measured: left out and the weights renormalised");
    }
  };
  part("decoupling", r->decoupling.measured, r->decoupling.score, o.weight_decoupling);
  part("network", r->network_measured, r->network_part, o.weight_network);
  part("temporal", r->temporal.measured, r->temporal_part, o.weight_temporal);
  r->score = weights > 0 ? sum / weights : 0;
  e.Term("score", r->score, "ratio", "sum(weight x part) / sum(weight) over the measured parts");
  r->sections.push_back({"score", e});
}

// The MIG impact model (src/analysis/mig/slice_slowdown.h), for a slice before it is
// recommended (rule 5's budget) and after (the impact section).
ImpactRange MigSliceImpact(const MigGeometry& g, const MigProfileSpec& p, const RuleInputs& in, Explanation* e) {
  mig::SliceSlowdown x = mig::PredictSliceSlowdown(g, p, in.slice_load, e);
  return {x.expected, x.lo, x.hi};
}

// Rule 5's slice: the smallest profile below the whole GPU (the last one) that covers the
// memory x (1 + headroom) and the p95 compute need and whose expected slowdown stays within
// the budget; -1 when none does. `considered` says why each smaller profile was refused.
struct MigSliceChoice {
  int profile = -1;
  Explanation considered;
};

MigSliceChoice ChooseMigSlice(const DisaggOptions& o, const RuleInputs& in,
                              const MigGeometry& g, const GpuNeed& need) {
  MigSliceChoice c;
  Explanation& e = c.considered;
  double memory = need.memory_bytes * (1 + o.mig_headroom);
  e.Input("MIG slice slowdown budget", o.mig_max_slowdown, "ratio",
          "--max-slowdown: the expected slowdown a slice may cost (policy)");
  for (size_t i = 0; i + 1 < g.profiles.size(); ++i) {
    const MigProfileSpec& p = g.profiles[i];
    std::string name = "MIG " + p.name;
    if (mig::ProfileBytes(p) < memory) {
      e.Term(name + " refused", mig::ProfileBytes(p), "B", p.name + ": memory < " + FormatBytes(memory) + " (peak x " +
                                                               FormatFixed(1 + o.mig_headroom, 2) + ")");
      continue;
    }
    if (mig::ProfileShare(g, p) < in.u_p95) {
      e.Term(name + " refused", mig::ProfileShare(g, p), "ratio",
             p.name + ": SM share " + Pct(mig::ProfileShare(g, p)) + " < p95 compute need " + Pct(in.u_p95));
      continue;
    }
    double slowdown = MigSliceImpact(g, p, in, nullptr).expected;
    bool within = slowdown <= o.mig_max_slowdown;
    e.Term(name + (within ? " fits" : " refused"), slowdown, "ratio",
           p.name + ": expected slowdown " + Pct(slowdown) + (within ? " <= " : " > ") + Pct(o.mig_max_slowdown));
    if (within) {
      c.profile = static_cast<int>(i);
      break;
    }
  }
  return c;
}

void ChooseStrategy(const DisaggOptions& o, const WorkloadDemand& d, const RuleInputs& in, DisaggResult* r) {
  Explanation e;
  e.Input("share of a GPU needed, low", in.f_lo, "ratio", "max(mean compute need, memory share)");
  e.Input("share of a GPU needed, high", in.f_hi, "ratio", "max(p95 compute need, memory share)");
  if (in.busy_measured) e.Input("GPU busy", in.busy, "ratio", d.gpu_busy.measured ? d.gpu_busy.basis : "busy bins");
  e.Input("collective share of busy time", d.communication_share, "ratio", "timeline communication / busy");
  const LinkSensitivity& scored = r->links.front();
  const MigGeometry* geometry = FindMigGeometry(r->device_id);
  // Rules in the order docs/disaggregation.md numbers them; the first that holds decides.
  int rule_decided = 0;
  auto pick = [&](int rule, Strategy s, std::string reason) {
    rule_decided = rule;
    r->strategy = s;
    r->strategy_reason = std::move(reason);
    e.Term("rule", rule, "", r->strategy_reason);
  };
  bool measured = r->need.compute_measured || r->need.memory_measured;
  bool mig_considered = geometry != nullptr && r->need.compute_measured;
  MigSliceChoice slice;
  if (mig_considered) slice = ChooseMigSlice(o, in, *geometry, r->need);
  const int mig_profile = slice.profile;
  r->mig_max_slowdown = o.mig_max_slowdown;
  if (!measured) {
    pick(1, Strategy::kDedicated, "nothing measured about its compute or memory: no share can be sized");
  } else if (in.f_hi >= o.dedicated_need) {
    pick(2, Strategy::kDedicated, "needs " + Pct(in.f_hi) + " of a GPU (>= " + Pct(o.dedicated_need) + ")");
  } else if (d.communication_share >= o.comm_heavy_share) {
    pick(3, Strategy::kDedicated, Pct(d.communication_share) + " of busy time in collectives (>= " +
                                   Pct(o.comm_heavy_share) + "): keep its NVLink peers on dedicated GPUs");
  } else if (r->network_measured && r->parts_measured >= 2 && scored.slowdown_hi <= o.remote_max_slowdown &&
             r->score >= o.remote_min_score) {
    pick(4, Strategy::kRemotePool, "at most " + Pct(scored.slowdown_hi) + " slower behind " + scored.link.label +
                                    " (<= " + Pct(o.remote_max_slowdown) + ") and score " + FormatFixed(r->score, 2) +
                                    " >= " + FormatFixed(o.remote_min_score, 2) +
                                    " over " + std::to_string(r->parts_measured) + " parts");
  } else if (mig_profile >= 0 && r->temporal.measured && r->temporal.predictability >= o.mig_min_predictability) {
    r->mig_profile = geometry->profiles[static_cast<size_t>(mig_profile)].name;
    pick(5, Strategy::kMigSlice, "predictable demand (" + FormatFixed(r->temporal.predictability, 2) + " >= " +
                                  FormatFixed(o.mig_min_predictability, 2) + ") that fits " + r->mig_profile +
                                  " within the " + Pct(o.mig_max_slowdown) + " slowdown budget");
  } else if (r->need.compute_measured && in.busy_measured && in.u_p95 <= o.mps_max_compute &&
             in.busy >= o.shared_max_busy) {
    pick(6, Strategy::kMpsShare, "busy " + Pct(in.busy) + " of the time but needs at most " + Pct(in.u_p95) +
                                  " of the SMs: share them spatially");
  } else if (in.busy_measured && in.busy < o.shared_max_busy) {
    pick(7, Strategy::kTimeSliced, "GPU idle " + Pct(1 - in.busy) + " of the time: another workload can use the gaps");
  } else if (r->need.compute_measured && in.u_p95 <= o.mps_max_compute) {
    pick(8, Strategy::kMpsShare, "needs at most " + Pct(in.u_p95) + " of the SMs: share them spatially");
  } else if (!in.busy_measured || !r->need.compute_measured) {
    pick(9, Strategy::kDedicated, std::string(in.busy_measured ? "SM demand" : "GPU busy time") +
                                       " not measured: no sharing strategy can be judged safe");
  } else {
    pick(10, Strategy::kDedicated, "busy " + Pct(in.busy) + " and needs " + Pct(in.f_hi) +
                                      " of the GPU: sharing would slow it more than it saves");
  }
  // Rule 5 was tried (rules 1-4 did not hold): say which slices it weighed and why.
  if (mig_considered && rule_decided >= 5) e.Append(slice.considered);
  if (geometry == nullptr) e.Assume("the device (" + (r->device_id.empty() ? std::string("unknown") : r->device_id) +
                                    ") has no MIG geometry in kraken: MIG slice not considered");
  r->sections.push_back({"strategy", e});
}

void Impact(const RuleInputs& in, DisaggResult* r) {
  Explanation e;
  ImpactRange& x = r->impact;
  double b = in.busy;
  switch (r->strategy) {
    case Strategy::kDedicated:
      e.Term("slowdown", 0, "ratio", "the workload keeps its GPU");
      break;
    case Strategy::kRemotePool: {
      const LinkSensitivity& s = r->links.front();
      x = {s.slowdown_mid(), s.slowdown_lo, s.slowdown_hi};
      e.Term("slowdown", x.expected, "ratio", "network model at " + s.link.label + ": (low + high) / 2");
      break;
    }
    case Strategy::kMigSlice: {
      const MigGeometry* g = FindMigGeometry(r->device_id);
      const MigProfileSpec* p = g ? FindMigProfile(*g, r->mig_profile) : nullptr;
      if (p != nullptr) x = MigSliceImpact(*g, *p, in, &e);
      break;
    }
    case Strategy::kMpsShare:
      x.expected = b * b * std::max(0.0, 2 * in.fill - 1);
      x.lo = 0;
      x.hi = b * std::max(0.0, 2 * in.fill_hi - 1);
      e.Term("slowdown, expected", x.expected, "ratio", "busy^2 x max(0, 2 x SM fill - 1)");
      e.Term("slowdown, high", x.hi, "ratio", "busy x max(0, 2 x worst SM fill - 1)");
      e.Assume("the co-tenant is a copy of this workload; when both run they split the SMs evenly, so a kernel "
               "that wants a fill f of them runs 2f times longer when 2f > 1; expected: the co-tenant is busy "
               "independently of this one; high: it is busy whenever this one is");
      break;
    case Strategy::kTimeSliced:
      x = {b * b, 0, b};
      e.Term("slowdown, expected", x.expected, "ratio", "busy^2: an identical co-tenant busy independently");
      e.Term("slowdown, high", x.hi, "ratio", "busy: the co-tenant runs whenever this one does");
      e.Assume("time slicing alternates whole GPU time slices; context-switch overhead is not modelled");
      break;
  }
  e.Term("slowdown, low", x.lo, "ratio", "best case of the model");
  r->sections.push_back({"impact", e});
}

void Savings(const DisaggOptions& o, const RuleInputs& in, DisaggResult* r) {
  Explanation e;
  switch (r->strategy) {
    case Strategy::kDedicated:
      r->gpu_fraction_lo = r->gpu_fraction_hi = 1;
      e.Term("GPU share kept", 1, "ratio", "a whole GPU");
      break;
    case Strategy::kMigSlice: {
      const MigGeometry* g = FindMigGeometry(r->device_id);
      const MigProfileSpec* p = g ? FindMigProfile(*g, r->mig_profile) : nullptr;
      double share = p ? std::max(static_cast<double>(p->compute_slices) / g->compute_slice_count,
                                  static_cast<double>(p->memory_slices) / g->memory_slice_count)
                       : 1;
      r->gpu_fraction_lo = r->gpu_fraction_hi = share;
      e.Term("GPU share kept", share, "ratio", "max(compute slices / 7, memory slices / 8) of " + r->mig_profile);
      break;
    }
    case Strategy::kTimeSliced:
      r->gpu_fraction_lo = std::max(in.busy, in.memory_share);
      r->gpu_fraction_hi = std::max(in.busy_high, in.memory_share);
      e.Term("GPU share kept, low", r->gpu_fraction_lo, "ratio", "max(mean busy, memory share)");
      e.Term("GPU share kept, high", r->gpu_fraction_hi, "ratio", "max(busy of the busiest tenth, memory share)");
      break;
    case Strategy::kMpsShare:
    case Strategy::kRemotePool:
      r->gpu_fraction_lo = in.f_lo;
      r->gpu_fraction_hi = in.f_hi;
      e.Term("GPU share kept, low", in.f_lo, "ratio", "max(mean compute need, memory share)");
      e.Term("GPU share kept, high", in.f_hi, "ratio", "max(p95 compute need, memory share)");
      break;
  }
  r->freed_lo = 1 - r->gpu_fraction_hi;
  r->freed_hi = 1 - r->gpu_fraction_lo;
  r->price_per_gpu_hour = o.price_per_gpu_hour;
  r->savings_per_hour_lo = r->freed_lo * o.price_per_gpu_hour;
  r->savings_per_hour_hi = r->freed_hi * o.price_per_gpu_hour;
  r->savings_per_month_lo = r->savings_per_hour_lo * o.hours_per_month;
  r->savings_per_month_hi = r->savings_per_hour_hi * o.hours_per_month;
  e.Input("price", o.price_per_gpu_hour, "$/GPU-hour", "--price");
  e.Term("GPU-hours freed per hour, low", r->freed_lo, "GPU-h/h", "1 - GPU share kept (high)");
  e.Term("GPU-hours freed per hour, high", r->freed_hi, "GPU-h/h", "1 - GPU share kept (low)");
  e.Term("savings per hour", r->savings_per_hour_lo, "$", "freed x price, low end (high end " +
                                                             FormatFixed(r->savings_per_hour_hi, 2) + ")");
  e.Term("savings per month", r->savings_per_month_lo, "$", "per hour x " + FormatFixed(o.hours_per_month, 0) +
                                                               " h, low end (high end " +
                                                               FormatFixed(r->savings_per_month_hi, 2) + ")");
  e.Assume("the freed share of the GPU is sold or reused at the same price; packing losses are not counted");
  r->sections.push_back({"savings", e});
}

}  // namespace

std::string_view StrategyName(Strategy strategy) {
  switch (strategy) {
    case Strategy::kDedicated: return "dedicated";
    case Strategy::kTimeSliced: return "time-sliced";
    case Strategy::kMpsShare: return "MPS share";
    case Strategy::kMigSlice: return "MIG slice";
    case Strategy::kRemotePool: return "remote-pool friendly";
  }
  return "dedicated";
}

DisaggResult AnalyzeDisaggregation(const Profile& profile, const WorkloadReport& report, const WorkloadDemand& demand,
                                   const DisaggOptions& options) {
  DisaggResult r;
  r.workload = demand.name;
  r.source_kind = demand.source_kind;
  r.workload_type = demand.workload_type;
  r.device_id = demand.device_id;
  r.need = EstimateGpuNeed(demand);
  r.sections.push_back({"demand", ExplainGpuNeed(r.need)});

  r.decoupling = AnalyzeDecoupling(profile, demand, r.need);
  r.sections.push_back({"decoupling", ExplainDecoupling(r.decoupling)});

  r.traffic = ExtractTraffic(profile, report, demand);
  std::vector<RemoteLink> links = options.links.empty() ? DefaultRemoteLinks() : options.links;
  Explanation network = ExplainTraffic(r.traffic);
  for (const RemoteLink& link : links) {
    r.links.push_back(EvaluateLink(r.traffic, link));
    const LinkSensitivity& s = r.links.back();
    for (const LinkComponent& c : s.components)
      network.Term(link.label + " " + c.name + " added", c.added_hi_s, "s",
                   "high end; low end " + FormatFixed(c.added_lo_s, 6) + " s over " + std::to_string(c.operations) +
                       " operations");
    network.Term(link.label + " slowdown", s.slowdown_mid(), "ratio",
                 "added / wall time: low " + Pct(s.slowdown_lo) + ", high " + Pct(s.slowdown_hi) +
                     (s.saturated ? ", link saturated" : ""));
  }
  r.network_measured = r.links.front().measured;
  if (r.network_measured) {
    r.network_part = std::clamp(1 - r.links.front().slowdown_mid() / options.network_tolerance, 0.0, 1.0);
    network.Term("network part", r.network_part, "ratio",
                 "clamp(1 - slowdown at " + links.front().label + " / " + Pct(options.network_tolerance) + ", 0, 1)");
  }
  r.sections.push_back({"network", network});

  r.temporal = temporal::AnalyzeStability(demand.busy_bins, demand.bin_s);
  r.temporal_part = r.temporal.predictability;
  Explanation temporal;
  if (r.temporal.measured) {
    temporal = temporal::ExplainStability(r.temporal, demand.gpu_busy.basis);
  } else {
    temporal.Assume(std::to_string(r.temporal.bins) + " busy bins (fewer than " + std::to_string(temporal::kMinTemporalBins) +
                    "): temporal stability not measured");
  }
  r.sections.push_back({"temporal", temporal});

  Score(options, &r);
  RuleInputs in = Inputs(r, demand);
  ChooseStrategy(options, demand, in, &r);
  Impact(in, &r);
  Savings(options, in, &r);
  return r;
}

}  // namespace kraken::disagg
