#include "analysis/mig/mig_plan.h"

#include <algorithm>
#include <cmath>

#include "analysis/temporal/stability.h"
#include "base/text.h"
#include "base/text_table.h"
#include "model/device_catalog.h"

namespace kraken::mig {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

std::string Pct(double ratio) { return FormatFixed(100 * ratio, 1) + "%"; }
std::string GiB(double bytes) { return FormatFixed(bytes / kGiB, 2) + " GiB"; }

double DeviceMemoryBytes(const MigGeometry& g) {
  const DeviceSpec* spec = FindDeviceSpec(g.device_id);
  if (spec != nullptr) return static_cast<double>(spec->memory_bytes);
  return g.profiles.empty() ? 0 : ProfileBytes(g.profiles.back());
}

// Demand measured on another GPU model: carries the SMs it kept busy over, not its share,
// into the choice's compute need and the slowdown model's load. Returns the SM scale.
double CarryOverSms(const GpuNeed& n, const MigGeometry& g, MigChoice* c, SliceLoad* load) {
  if (!n.compute_measured || n.device_sm_count <= 0 || n.device_sm_count == g.full_gpu_sm_count) return 1;
  double sm_scale = static_cast<double>(n.device_sm_count) / g.full_gpu_sm_count;
  c->compute_need = std::min(1.0, c->compute_need * sm_scale);
  load->compute_mean = std::min(1.0, load->compute_mean * sm_scale);
  load->fill_hi = std::min(1.0, load->fill_hi * sm_scale);
  c->explanation.Assume("SM demand measured on a " + std::to_string(n.device_sm_count) +
                        "-SM GPU is carried over as the same number of SMs of the " +
                        std::to_string(g.full_gpu_sm_count) + "-SM " + g.name +
                        " (per-SM throughput taken as equal: conservative when moving to a newer GPU)");
  return sm_scale;
}

// The budget walk: from `first` (the smallest profile that covers the need) up to, not
// including, the whole GPU, the first profile that covers the need and whose expected
// slowdown is within the budget; profile -1 when none is.
struct SliceWithinBudget {
  int profile = -1;
  double slowdown = 0;
  std::string refused;  // "1g.20gb 66.5%, 2g.20gb 30.1%": covering profiles that cost more
};

SliceWithinBudget FirstWithinBudget(const MigGeometry& g, int first, const MigChoice& c, const SliceLoad& load,
                                    double budget, Explanation* e) {
  SliceWithinBudget r;
  e->Input("slowdown budget", budget, "ratio", "--max-slowdown: the expected slowdown a slice may cost (policy)");
  e->Assume("slice slowdown, closed loop: the GPU's busy periods stretch by (SMs wanted / SMs given), and by DRAM "
            "activity / memory-bandwidth share; gaps stay as they are (the model `kraken disagg` uses)");
  for (size_t i = static_cast<size_t>(first); i + 1 < g.profiles.size(); ++i) {
    const MigProfileSpec& p = g.profiles[i];
    if (ProfileBytes(p) < c.memory_need_bytes || ProfileShare(g, p) < c.compute_need) continue;
    double slowdown = PredictSliceSlowdown(g, p, load).expected;
    bool within = slowdown <= budget;
    e->Term("MIG " + p.name + (within ? " fits" : " refused"), slowdown, "ratio",
            p.name + ": expected slowdown " + Pct(slowdown) + (within ? " <= " : " > ") + Pct(budget));
    if (within) {
      r.profile = static_cast<int>(i);
      r.slowdown = slowdown;
      return r;
    }
    r.refused += (r.refused.empty() ? "" : ", ") + p.name + " " + Pct(slowdown);
  }
  return r;
}

MigChoice Choose(const MigWorkload& w, int index, const MigGeometry& g, const MigPlanOptions& o) {
  MigChoice c;
  c.workload = index;
  c.explanation = ExplainGpuNeed(w.need);
  const GpuNeed& n = w.need;
  c.memory_need_bytes = n.memory_measured ? n.memory_bytes * (1 + o.memory_headroom) : 0;
  c.compute_need = n.compute_measured ? n.compute_p95 : 0;
  Explanation& e = c.explanation;
  SliceLoad load = w.load;
  double sm_scale = CarryOverSms(n, g, &c, &load);
  if (n.memory_measured)
    e.Term("memory need", c.memory_need_bytes, "B", "peak x (1 + headroom " + Pct(o.memory_headroom) + ")");
  if (n.compute_measured) e.Term("compute need", c.compute_need, "ratio of the GPU's SMs", "p95 compute need on " + g.name);
  if (w.communication_share > 0) e.Input("collective share of busy time", w.communication_share, "ratio", "timeline");
  if (w.nvlink_bytes_per_s > 0) e.Input("NVLink bytes/s", w.nvlink_bytes_per_s, "B/s", "sampled");
  if (w.burst_ratio > 0) e.Input("burst ratio", w.burst_ratio, "", "p95 / mean of the busy bins");
  auto whole = [&](int gpus, std::string reason) {
    c.sliced = false;
    c.whole_gpus = gpus;
    c.reason = std::move(reason);
    return c;
  };
  if (!n.memory_measured && !n.compute_measured)
    return whole(1, "nothing measured to size a slice (no memory peak, no SM demand)");
  if (!n.memory_measured) e.Assume("no memory peak: sized by SM demand only");
  if (!n.compute_measured) e.Assume("no SM demand: sized by memory only");
  double device_memory = DeviceMemoryBytes(g);
  if (n.memory_measured && device_memory > 0 && n.memory_bytes > device_memory) {
    int gpus = static_cast<int>(std::ceil(n.memory_bytes / device_memory));
    return whole(gpus, "needs more than one GPU: peak memory " + GiB(n.memory_bytes) + " > " + GiB(device_memory));
  }
  if (w.communication_share >= o.comm_heavy_share)
    return whole(1, "communicates heavily over NCCL (" + Pct(w.communication_share) +
                        " of GPU busy time in collectives): MIG instances have no GPU peer-to-peer, "
                        "so NVLink traffic would go through host memory");
  if (w.nvlink_bytes_per_s >= o.nvlink_heavy_bytes_per_s)
    return whole(1, "moves " + FormatFixed(w.nvlink_bytes_per_s / 1e9, 2) +
                        " GB/s over NVLink: MIG instances have no GPU peer-to-peer");
  int profile = ChooseProfile(g, c.memory_need_bytes, c.compute_need);
  const MigProfileSpec& largest = g.profiles.back();
  std::string needs = (n.memory_measured ? "memory " + GiB(c.memory_need_bytes) : std::string("memory not measured")) +
                      " and " + (n.compute_measured ? "SMs " + Pct(c.compute_need) : std::string("SMs not measured"));
  if (profile < 0)
    return whole(1, "needs the whole GPU: " + needs + " exceed the largest profile " + largest.name + " (" +
                        GiB(ProfileBytes(largest)) + ", " + Pct(ProfileShare(g, largest)) + " of the SMs)");
  if (static_cast<size_t>(profile) + 1 == g.profiles.size())
    return whole(1, "needs the whole GPU: only " + largest.name + " (all 7 slices) covers " + needs);
  std::string budget_note = " (slowdown not checked: GPU busy time not measured)";
  if (load.busy_measured) {
    SliceWithinBudget fit = FirstWithinBudget(g, profile, c, load, o.max_slowdown, &e);
    c.slowdown_checked = true;
    if (fit.profile < 0)
      return whole(1, "every profile below " + largest.name + " that covers " + needs + " is predicted more than " +
                          Pct(o.max_slowdown) + " slower: " + fit.refused);
    profile = fit.profile;
    c.expected_slowdown = fit.slowdown;
    budget_note = " within the " + Pct(o.max_slowdown) + " slowdown budget (expected " + Pct(fit.slowdown) +
                  (fit.refused.empty() ? "" : "; " + fit.refused + " over it") + ")";
  } else {
    e.Assume("GPU busy time not measured: the slice's slowdown was not checked against the budget");
  }
  const MigProfileSpec& p = g.profiles[static_cast<size_t>(profile)];
  e.Term("slice memory", ProfileBytes(p), "B", p.name + " (-lgip)");
  e.Term("slice SM share", ProfileShare(g, p), "ratio", std::to_string(p.sm_count) + " / " +
                                                             std::to_string(g.full_gpu_sm_count) + " SMs");
  bool bursty = w.burst_ratio >= o.bursty_ratio;
  double burst = std::min(1.0, n.compute_max * sm_scale);
  if (w.workload_type == "inference" && bursty && burst > ProfileShare(g, p))
    return whole(1, "latency-critical and bursty: bursts reach " + Pct(burst) + " of the SMs (p95/mean busy " +
                        FormatFixed(w.burst_ratio, 2) + ") but " + p.name + " gives " + Pct(ProfileShare(g, p)) +
                        "; a fixed slice would cap the bursts and queue requests");
  c.sliced = true;
  c.profile = profile;
  c.reason = "smallest profile that covers " + needs + budget_note;
  return c;
}

// Workloads whose slice packing left alone on a GPU keep that GPU whole (see
// MigPlanOptions::slice_alone): the GPU count is unchanged, the slice's slowdown is saved.
void KeepLoneSlicesWhole(const MigGeometry& g, MigPlan* plan) {
  std::vector<PackedGpu> shared;
  for (PackedGpu& gpu : plan->packing.gpus) {
    if (gpu.items.size() != 1) {
      shared.push_back(std::move(gpu));
      continue;
    }
    MigChoice& c = plan->choices[static_cast<size_t>(gpu.items[0])];
    const std::string slice = g.profiles[static_cast<size_t>(c.profile)].name;
    c.explanation.Term("alone on its GPU", 1, "", "no other workload's slice fits beside " + slice);
    c.reason = "alone on its GPU: " + slice + " covers it (" +
               (c.slowdown_checked ? "expected " + Pct(c.expected_slowdown) + " slower" : "slowdown not checked") +
               ") but no other workload's slice fits beside it: slicing would free no GPU";
    c.sliced = false;
    c.alone = true;
    c.profile = -1;
    c.whole_gpus = 1;
    c.expected_slowdown = 0;
    plan->gpus_whole += 1;
  }
  plan->packing.gpus = std::move(shared);
}

}  // namespace

MigWorkload MigWorkloadFromDemand(const WorkloadDemand& d) {
  MigWorkload w;
  w.name = d.name;
  w.source = d.source_kind;
  w.workload_type = d.workload_type;
  w.need = EstimateGpuNeed(d);
  w.communication_share = d.communication_share;
  if (d.nvlink_bytes_per_s.measured) w.nvlink_bytes_per_s = d.nvlink_bytes_per_s.mean;
  temporal::TemporalStability t = temporal::AnalyzeStability(d.busy_bins, d.bin_s);
  if (t.measured) w.burst_ratio = t.burst_ratio;
  w.load = MeasureSliceLoad(d, w.need, t);
  return w;
}

double ProfileBytes(const MigProfileSpec& p) { return static_cast<double>(p.memory_mib) * kMiB; }

double ProfileShare(const MigGeometry& g, const MigProfileSpec& p) {
  return g.full_gpu_sm_count > 0 ? static_cast<double>(p.sm_count) / g.full_gpu_sm_count : 0;
}

int ChooseProfile(const MigGeometry& g, double memory_need_bytes, double compute_need) {
  for (size_t i = 0; i < g.profiles.size(); ++i) {
    const MigProfileSpec& p = g.profiles[i];
    if (ProfileBytes(p) >= memory_need_bytes && ProfileShare(g, p) >= compute_need) return static_cast<int>(i);
  }
  return -1;
}

MigPlan PlanMig(const std::vector<MigWorkload>& workloads, const MigGeometry& g, const MigPlanOptions& o) {
  MigPlan plan;
  plan.geometry = &g;
  plan.options = o;
  std::vector<int> item_profiles, item_workloads;
  for (size_t i = 0; i < workloads.size(); ++i) {
    MigChoice c = Choose(workloads[i], static_cast<int>(i), g, o);
    if (c.sliced) {
      item_profiles.push_back(c.profile);
      item_workloads.push_back(static_cast<int>(i));
      plan.baseline_gpus += 1;
    } else {
      plan.gpus_whole += c.whole_gpus;
      plan.baseline_gpus += c.whole_gpus;
    }
    plan.choices.push_back(std::move(c));
  }
  plan.packing = PackMinGpus(g, item_profiles);
  for (PackedGpu& gpu : plan.packing.gpus)
    for (int& item : gpu.items) item = item_workloads[static_cast<size_t>(item)];
  if (!o.slice_alone) KeepLoneSlicesWhole(g, &plan);
  plan.gpus_for_slices = static_cast<int>(plan.packing.gpus.size());
  plan.gpus_total = plan.gpus_for_slices + plan.gpus_whole;
  plan.density_gain = plan.gpus_total > 0 ? static_cast<double>(plan.baseline_gpus) / plan.gpus_total : 0;
  return plan;
}

}  // namespace kraken::mig
