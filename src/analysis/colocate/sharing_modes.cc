#include "analysis/colocate/sharing_modes.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "analysis/colocate/join.h"
#include "analysis/colocate/queueing.h"
#include "analysis/colocate/workload_inputs.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken {
namespace {

std::string F3(double v) { return FormatFixed(v, 3); }

// Transfers of two workloads that both use the host link collide: each runs at half speed
// while the other transfers. Extra wall time of `a` = its link-time share x the other's.
void AddPcie(const ColocationWorkload& a, const std::vector<ColocationWorkload>& all, size_t self,
             const SharingContext& ctx, ExtraTime* extra) {
  if (a.pcie_bytes_per_s <= 0 || a.busy <= 0) return;
  double link_a = std::min(1.0, a.pcie_bytes_per_s / ctx.params.pcie_bytes_per_s);
  double other = 0;
  for (size_t b = 0; b < all.size(); ++b)
    if (b != self) other += std::min(1.0, all[b].pcie_bytes_per_s / ctx.params.pcie_bytes_per_s);
  if (other <= 0) return;
  double stretch = link_a * std::min(1.0, other) / a.busy;
  extra->stretch_per_busy_s += stretch;
  extra->by_resource.emplace_back("PCIe", stretch);
  extra->terms.push_back({"PCIe collisions per busy second", stretch,
                          "link share " + F3(link_a) + " x co-runners' link share " + F3(other) + " / busy " +
                              F3(a.busy)});
}

// Kernel-time factor of `w` when its kernels of fill f get `available(f)` of the SMs.
double SmFactor(const ColocationWorkload& w, const std::function<double(double)>& available) {
  double factor = 0, total = 0;
  for (size_t i = 0; i < w.fill_share.size(); ++i) {
    if (w.fill_share[i] <= 0) continue;
    double fill = FillOfBin(i);
    double avail = std::max(available(fill), 1e-6);
    factor += w.fill_share[i] * std::max(1.0, fill / avail);
    total += w.fill_share[i];
  }
  return total > 0 ? factor / total : 1.0;
}

// Fraction of `requested` collisions at the p99 of a request with `kernels` launches.
double CollisionP99(double q, double kernels, double z) {
  if (kernels < 1) return q;
  return BinomialUpperQuantile(kernels, q, z) / kernels;
}

}  // namespace

ModePrediction PredictTimeSlice(const std::vector<ColocationWorkload>& ws, const SharingContext& ctx) {
  ModePrediction mode;
  mode.mode = SharingMode::kTimeSlice;
  const double slice = ctx.params.timeslice_s, sw = ctx.switch_s, z = ctx.params.p99_z;
  for (size_t a = 0; a < ws.size(); ++a) {
    const ColocationWorkload& w = ws[a];
    ExtraTime extra;
    double slices_gpu = 0;
    for (size_t b = 0; b < ws.size(); ++b) {
      if (b == a) continue;
      const CollisionEstimate& c = ctx.collision[a][b];
      // The co-runner keeps the GPU for a full slice, or for its whole request when shorter
      // (a request of back-to-back kernels; a per-kernel unit says nothing about bursts).
      double hold = slice;
      if (ws[b].request_driven && ws[b].request_gpu_s > 0 && StartsWith(ws[b].request_unit, "request"))
        hold = std::min(slice, ws[b].request_gpu_s);
      double wait = hold + 2 * sw;
      double stretch = c.q * wait / slice;
      slices_gpu += stretch;
      extra.terms.push_back({"q: P(" + ws[b].name + " busy | busy)", c.q, c.basis});
      extra.terms.push_back({"lost to " + ws[b].name + " per busy second", stretch,
                             "q " + F3(c.q) + " x (slice held " + FormatFixed(hold * 1e3, 3) + " ms + 2 switches x " +
                                 FormatFixed(sw * 1e6, 1) + " us) / slice " + FormatFixed(slice * 1e3, 1) + " ms"});
      if (w.request_s > 0) {
        // Every slice boundary inside the request, and its arrival, can find the co-runner's turn.
        double events = std::ceil(w.request_gpu_s / slice) + 1;
        extra.request_mean_s += events * c.q * wait;
        extra.request_p99_s += BinomialUpperQuantile(events, c.q, z) * wait;
        extra.terms.push_back({"slice turns per request", events,
                               "ceil(GPU time " + FormatFixed(w.request_gpu_s * 1e3, 3) + " ms / slice) + arrival; p99 " +
                                   F3(BinomialUpperQuantile(events, c.q, z)) + " lost to " + ws[b].name});
      }
    }
    extra.stretch_per_busy_s += slices_gpu;
    extra.by_resource.emplace_back("GPU time (time slices)", slices_gpu);
    AddPcie(w, ws, a, ctx, &extra);
    mode.workloads.push_back(FinishPrediction(w, extra, ctx));
  }
  CheckSharedMemory(ws, ctx, &mode);
  FinalizeMode(&mode);
  return mode;
}

ModePrediction PredictMps(const std::vector<ColocationWorkload>& ws, const SharingContext& ctx,
                          const std::vector<double>& shares_in) {
  ModePrediction mode;
  mode.mode = SharingMode::kMps;
  std::vector<double> shares = shares_in;
  shares.resize(ws.size(), 1.0);
  for (double& s : shares) s = std::clamp(s, 0.01, 1.0);
  mode.sm_shares = shares;
  const double z = ctx.params.p99_z, eta = ctx.params.dram_efficiency;
  bool noted_turnover = false, noted_kernels = false;
  for (size_t a = 0; a < ws.size(); ++a) {
    const ColocationWorkload& w = ws[a];
    const double sa = shares[a];
    ExtraTime extra;
    double f_alone = SmFactor(w, [&](double fill) { return std::min(fill, sa); });
    double sm_part = f_alone - 1, bw_part = 0, queue_part = 0;
    extra.terms.push_back({"SM factor alone (share " + F3(sa) + ")", f_alone,
                           "kernel time x max(1, fill / share), duration-weighted over the fill distribution"});
    double kernels_per_request = w.request_kernels;
    double request_stretch_mean = f_alone - 1, request_stretch_p99 = f_alone - 1;
    for (size_t b = 0; b < ws.size(); ++b) {
      if (b == a) continue;
      const ColocationWorkload& o = ws[b];
      const double q = ctx.collision[a][b].q, sb = shares[b];
      const double used_b = std::min(o.mean_fill, sb);
      // Proportional split of the SMs when the two grids together want more than all.
      double f_sm = SmFactor(w, [&](double fill) {
        double want = std::min(fill, sa);
        return want + used_b <= 1 ? want : want / (want + used_b);
      });
      double f_bw = std::max(1.0, (w.dram_intensity + o.dram_intensity) / eta);
      double m = w.memory_bound_share;
      double f_collide = (1 - m) * f_sm + m * std::max(f_sm, f_bw);
      sm_part += q * (f_sm - f_alone);
      bw_part += q * m * (std::max(f_sm, f_bw) - f_sm);
      extra.terms.push_back({"q: P(" + o.name + " busy | busy)", q, ctx.collision[a][b].basis});
      extra.terms.push_back({"SM factor with " + o.name, f_sm,
                             "its grids get want/(want + " + F3(used_b) + ") of the SMs when both exceed the GPU"});
      extra.terms.push_back({"DRAM factor with " + o.name, f_bw,
                             "max(1, (" + F3(w.dram_intensity) + " + " + F3(o.dram_intensity) + ") / efficiency " +
                                 F3(eta) + "), applied to memory-bound share " + F3(m)});
      request_stretch_mean += q * (f_collide - f_alone);
      request_stretch_p99 += CollisionP99(q, kernels_per_request, z) * (f_collide - f_alone);
      // Head-of-line: a kernel that finds the co-runner's blocks on every SM it may use
      // waits for one to retire. A split that keeps the shares apart never blocks.
      double block = 0;
      if (sa + sb > 1 + 1e-9) {
        double room = 1 - std::min(w.mean_fill, sa);
        for (size_t j = 0; j < o.fill_share.size(); ++j)
          if (std::min(FillOfBin(j), sb) > room + 1e-9) block += o.fill_share[j];
      }
      if (block > 0 && o.sm_turnover_s <= 0 && !noted_turnover) {
        mode.notes.push_back("SM queue wait not modelled for co-runners without kernel durations (sampled metrics)");
        noted_turnover = true;
      }
      if (block > 0 && w.kernels_per_busy_s <= 0 && !noted_kernels) {
        mode.notes.push_back("SM queue wait not modelled for workloads without a kernel count (sampled metrics)");
        noted_kernels = true;
      }
      if (block > 0 && o.sm_turnover_s > 0 && w.kernels_per_busy_s > 0) {
        double wait = o.sm_turnover_s / 2;
        double per_busy_s = w.kernels_per_busy_s * q * block * wait;
        queue_part += per_busy_s;
        extra.terms.push_back({"P(" + o.name + "'s kernel leaves no room)", block,
                               "its kernel time with fill > " + F3(1 - std::min(w.mean_fill, sa)) + " (1 - own fill)"});
        extra.terms.push_back({"SM queue wait per busy second", per_busy_s,
                               FormatFixed(w.kernels_per_busy_s, 0) + " kernels/s x q " + F3(q) + " x " + F3(block) +
                                   " x half its SM turnover " + FormatFixed(wait * 1e6, 1) + " us"});
        if (kernels_per_request > 0) {
          extra.request_mean_s += kernels_per_request * q * block * wait;
          extra.request_p99_s += BinomialUpperQuantile(kernels_per_request, q * block, z) * wait;
        }
      }
    }
    extra.stretch_per_busy_s = sm_part + bw_part + queue_part;
    extra.by_resource = {{"SMs", sm_part}, {"DRAM bandwidth", bw_part}, {"SM queue (co-runner's blocks)", queue_part}};
    if (w.request_s > 0) {
      extra.request_mean_s += w.request_gpu_s * request_stretch_mean;
      extra.request_p99_s += w.request_gpu_s * request_stretch_p99;
    }
    AddPcie(w, ws, a, ctx, &extra);
    mode.workloads.push_back(FinishPrediction(w, extra, ctx));
  }
  CheckSharedMemory(ws, ctx, &mode);
  FinalizeMode(&mode);
  return mode;
}

MigGeometry MigGeometryFor(const DeviceSpec* device) {
  MigGeometry g;
  if (device == nullptr) return g;
  const std::string& id = device->id;
  if (StartsWith(id, "a100") || StartsWith(id, "h100") || StartsWith(id, "h200")) {
    g.compute_slices = 7;
    g.memory_slices = 8;
    g.profiles = {{"1g", 1, 1}, {"2g", 2, 2}, {"3g", 3, 4}, {"4g", 4, 4}, {"7g", 7, 8}};
  }
  return g;
}

ModePrediction PredictMigLayout(const std::vector<ColocationWorkload>& ws, const SharingContext& ctx,
                                const std::vector<size_t>& profile_of) {
  ModePrediction mode;
  mode.mode = SharingMode::kMig;
  MigGeometry g = MigGeometryFor(ctx.device);
  const double eta = ctx.params.dram_efficiency;
  std::vector<std::string> overflow;
  for (size_t a = 0; a < ws.size(); ++a) {
    const ColocationWorkload& w = ws[a];
    const MigProfile& prof = g.profiles.at(profile_of.at(a));
    double sms = static_cast<double>(prof.compute_slices) / g.compute_slices;
    double mem = static_cast<double>(prof.memory_slices) / g.memory_slices;
    mode.mig_profiles.push_back(prof.name);
    mode.sm_shares.push_back(sms);
    mode.memory_shares.push_back(mem);
    ExtraTime extra;
    double f_sm = SmFactor(w, [&](double fill) { return std::min(fill, sms); });
    double f_bw = std::max(1.0, w.dram_intensity / (mem * eta));
    double m = w.memory_bound_share;
    double factor = (1 - m) * f_sm + m * std::max(f_sm, f_bw);
    extra.terms.push_back({"SM factor (" + prof.name + ": " + F3(sms) + " of the SMs)", f_sm,
                           "kernel time x max(1, fill / slice share)"});
    extra.terms.push_back({"DRAM factor (" + F3(mem) + " of the bandwidth)", f_bw,
                           "max(1, " + F3(w.dram_intensity) + " / (" + F3(mem) + " x " + F3(eta) +
                               ")) on memory-bound share " + F3(m)});
    extra.stretch_per_busy_s = factor - 1;
    extra.by_resource = {{"SMs (slice)", f_sm - 1},
                         {"DRAM bandwidth (slice)", m * (std::max(f_sm, f_bw) - f_sm)}};
    extra.request_mean_s = extra.request_p99_s = w.request_gpu_s * (factor - 1);
    AddPcie(w, ws, a, ctx, &extra);
    WorkloadPrediction p = FinishPrediction(w, extra, ctx);
    if (w.memory_measured && ctx.device != nullptr) {
      double slice_bytes = mem * static_cast<double>(ctx.device->memory_bytes);
      if (w.memory_bytes > slice_bytes) {
        p.fits_memory = false;
        p.qos_ok = false;
        p.contended_resource = "memory capacity (own slice)";
        overflow.push_back(w.name + " needs " + FormatBytes(w.memory_bytes) + " > " + FormatBytes(slice_bytes) +
                           " of its " + prof.name + " slice");
      }
    }
    mode.workloads.push_back(std::move(p));
  }
  if (!overflow.empty()) {
    mode.feasible = false;
    mode.infeasible_reason = "memory: " + JoinText(overflow, "; ") + " (MIG confines the overflow to that slice)";
  }
  FinalizeMode(&mode);
  return mode;
}

namespace {

// Lexicographic rank of a MIG layout: fitting workloads, QoS met, worst and total penalty.
struct LayoutRank {
  int fitting = 0;
  int qos_met = 0;
  double worst = 0;
  double total = 0;
  bool BetterThan(const LayoutRank& o) const {
    if (fitting != o.fitting) return fitting > o.fitting;
    if (qos_met != o.qos_met) return qos_met > o.qos_met;
    if (std::abs(worst - o.worst) > 1e-12) return worst < o.worst;
    return total < o.total;
  }
};

LayoutRank RankOf(const ModePrediction& m) {
  LayoutRank r;
  for (const WorkloadPrediction& p : m.workloads) {
    r.fitting += p.fits_memory ? 1 : 0;
    r.qos_met += p.qos_ok ? 1 : 0;
    r.worst = std::max(r.worst, p.penalty);
    r.total += p.penalty;
  }
  return r;
}

}  // namespace

ModePrediction PredictMig(const std::vector<ColocationWorkload>& ws, const SharingContext& ctx) {
  MigGeometry g = MigGeometryFor(ctx.device);
  ModePrediction best;
  best.mode = SharingMode::kMig;
  if (g.profiles.empty()) {
    best.feasible = false;
    best.all_qos_ok = false;
    best.infeasible_reason = ctx.device == nullptr ? "device unknown: MIG layouts need the GPU model (--device)"
                                                   : ctx.device->id + " does not support MIG";
    return best;
  }
  if (ws.size() > static_cast<size_t>(g.compute_slices)) {
    best.feasible = false;
    best.all_qos_ok = false;
    best.infeasible_reason = "more workloads than MIG compute slices (" + std::to_string(g.compute_slices) + ")";
    return best;
  }
  std::vector<size_t> choice(ws.size(), 0);
  bool found = false;
  LayoutRank best_rank;
  // Every assignment of profiles whose compute and memory slices fit the GPU.
  std::function<void(size_t, int, int)> search = [&](size_t i, int compute, int memory) {
    if (i == ws.size()) {
      ModePrediction m = PredictMigLayout(ws, ctx, choice);
      LayoutRank r = RankOf(m);
      if (!found || r.BetterThan(best_rank)) {
        best = std::move(m);
        best_rank = r;
        found = true;
      }
      return;
    }
    for (size_t p = 0; p < g.profiles.size(); ++p) {
      int c = compute + g.profiles[p].compute_slices, mem = memory + g.profiles[p].memory_slices;
      if (c > g.compute_slices || mem > g.memory_slices) continue;
      choice[i] = p;
      search(i + 1, c, mem);
    }
  };
  search(0, 0, 0);
  best.notes.push_back("layouts checked by slice totals (" + std::to_string(g.compute_slices) + " compute, " +
                       std::to_string(g.memory_slices) + " memory); placement rules within the GPU are not modelled");
  return best;
}

}  // namespace kraken
