#include "analysis/colocate/sharing_modes.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "analysis/colocate/join.h"
#include "analysis/colocate/queueing.h"
#include "analysis/colocate/sm_queue.h"
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

// Turns `w` gives the GPU away per second of its busy time: one per slice of GPU work,
// or, when it synchronizes more often, one per sync that waited on its GPU work: the sync
// leaves its queue empty, a co-runner with work takes the GPU, and the next launch waits
// until that co-runner's slice (or backlog) ends. Sync bursts of GPU time g give about
// ceil(g / slice) turns each; the larger of the two rates is that sum's lower bound.
double TurnsPerBusySecond(const ColocationWorkload& w, double slice, ExtraTime* extra) {
  double per_slice = 1 / slice;
  double gpu_per_step = w.busy * w.period_s;
  if (w.gpu_syncs_per_step <= 0 || gpu_per_step <= 0) return per_slice;
  double per_sync = w.gpu_syncs_per_step / gpu_per_step;
  extra->terms.push_back({"turns given away per busy second", std::max(per_slice, per_sync),
                          "max(1 / slice " + FormatFixed(per_slice, 0) + ", " + F3(w.gpu_syncs_per_step) +
                              " syncs per step / (busy " + F3(w.busy) + " x step " +
                              FormatFixed(w.period_s * 1e3, 3) + " ms) = " + FormatFixed(per_sync, 0) + ")"});
  return std::max(per_slice, per_sync);
}

// Where the time-slicing collision probability q comes from (PredictTimeSlice).
std::string QueuedWorkBasis(const CollisionEstimate& c, const std::string& co_runner, double active) {
  if (c.phase_locked)
    return c.basis + "; with work queued (" + co_runner + " launched anything in the bin) at that phase: " +
           F3(c.locked_active);
  if (active > c.q) return "active (launched work) in " + F3(active) + " of its 1 ms bins; busy " + F3(c.q);
  return c.basis;
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
    const double turns = TurnsPerBusySecond(w, slice, &extra);
    for (size_t b = 0; b < ws.size(); ++b) {
      if (b == a) continue;
      const CollisionEstimate& c = ctx.collision[a][b];
      // The co-runner keeps the GPU for a full slice, or for its whole request when shorter
      // (a request of back-to-back kernels; a per-kernel unit says nothing about bursts).
      double hold = slice;
      if (ws[b].request_driven && ws[b].request_gpu_s > 0 && StartsWith(ws[b].request_unit, "request"))
        hold = std::min(slice, ws[b].request_gpu_s);
      // The co-runner keeps launching while it waits: at the end of a's slice it has work
      // whenever it was active then (it launched anything in that millisecond), not only
      // when its kernels happened to run; and it holds the GPU until that backlog is done.
      // Locked phases too: they settle where a's busy bins meet b's bins without work, and
      // a co-runner with work in every bin (launch-bound) has no such bin to lock into.
      const double active = ActiveShare(ws[b]);
      const double q = c.phase_locked ? c.locked_active : std::max(c.q, active);
      const double backlog = BacklogHoldSeconds(ws[b].busy, active, slice, sw);
      hold = std::min(hold, backlog);
      double wait = hold + 2 * sw;
      double stretch = q * wait * turns;
      slices_gpu += stretch;
      extra.terms.push_back({"q: P(" + ws[b].name + " has work | busy)", q, QueuedWorkBasis(c, ws[b].name, active)});
      extra.terms.push_back({"lost to " + ws[b].name + " per busy second", stretch,
                             "q " + F3(q) + " x (slice held " + FormatFixed(hold * 1e3, 3) + " ms + 2 switches x " +
                                 FormatFixed(sw * 1e6, 1) + " us) x " + FormatFixed(turns, 0) +
                                 " turns per busy second (1 / slice " + FormatFixed(slice * 1e3, 1) +
                                 " ms unless it syncs more often)"});
      if (w.request_s > 0) {
        // Every slice boundary inside the request, and its arrival, can find the co-runner's turn.
        double events = std::ceil(w.request_gpu_s / slice) + 1;
        extra.request_mean_s += events * q * wait;
        extra.request_p99_s += BinomialUpperQuantile(events, q, z) * wait;
        extra.terms.push_back({"slice turns per request", events,
                               "ceil(GPU time " + FormatFixed(w.request_gpu_s * 1e3, 3) + " ms / slice) + arrival; p99 " +
                                   F3(BinomialUpperQuantile(events, q, z)) + " lost to " + ws[b].name});
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

namespace {

const char* const kNoQueueNote =
    "SM queue not modelled for workloads without kernel durations (sampled metrics): SMs split in proportion "
    "to demand instead";

void NoteOnce(std::vector<std::string>* notes, const std::string& note) {
  if (std::find(notes->begin(), notes->end(), note) == notes->end()) notes->push_back(note);
}

// The SM queue behind `o`'s grids that reach every SM (sm_queue.h), added to `extra`'s
// request latency and terms. Returns the extra per busy second for the slowdown.
double AddSmQueue(const ColocationWorkload& w, const ColocationWorkload& o, double q, double z, ExtraTime* extra) {
  SmQueueEstimate e = EstimateSmQueue(w, w.busy, o, q);
  if (!e.modelled) return 0;
  double interleave = InterleaveStretch(w, e, o, q);
  if (interleave > 0)
    extra->terms.push_back({"kernels of " + o.name + " let in at the end of its holds (per busy second)", interleave,
                            "min(" + FormatFixed(w.sm_hold_kernels_per_busy_s, 0) + " holds/s, q x " +
                                FormatFixed(o.kernels_per_busy_s, 0) + " kernels/s x hold share " +
                                F3(w.sm_hold_share) + ") x their mean " + FormatFixed(1e6 / o.kernels_per_busy_s, 2) +
                                " us"});
  if (e.blocked_share <= 0) return interleave;
  extra->terms.push_back({"x: " + o.name + " holds the SMs", e.blocked_share,
                          "q " + F3(q) + " x its kernel time holding the block dispatcher " + F3(o.sm_hold_share)});
  extra->terms.push_back({"SM queue if every kernel waits", e.wait_stretch,
                          FormatFixed(w.kernels_per_busy_s, 0) + " kernels/s x x " + F3(e.blocked_share) +
                              " x its residual hold " + FormatFixed(o.sm_hold_residual_s * 1e6, 1) + " us"});
  extra->terms.push_back({"GPU time open to " + w.name, e.available,
                          "1 - x + q x " + FormatFixed(o.sm_hold_kernels_per_busy_s, 0) +
                              " holds/s x own mean kernel " + FormatFixed(1e6 / w.kernels_per_busy_s, 2) + " us"});
  extra->terms.push_back({"SM queue if backlogged", e.slot_stretch,
                          "(busy " + F3(w.busy) + " / open " + F3(e.available) + " - 1) / busy; 0 when it fits"});
  double used = (w.request_driven ? e.latency_stretch : e.throughput_stretch);
  extra->terms.push_back({"SM queue per busy second", used,
                          w.request_driven ? "a request waits for every kernel unless backlogged"
                                           : "the smaller bound; 0 when the open time suffices"});
  if (w.request_s > 0 && e.wait_stretch > 0) {
    // Blocked kernels of one request: Binomial(n, x); when backlogged the waits shrink alike.
    double kernels = w.request_kernels > 0 ? w.request_kernels : 1;
    double scale = e.latency_stretch / e.wait_stretch;
    extra->request_mean_s += w.request_gpu_s * e.latency_stretch;
    extra->request_p99_s += BinomialUpperQuantile(kernels, e.blocked_share, z) * o.sm_hold_residual_s * scale;
  }
  return used + interleave;
}

}  // namespace

ModePrediction PredictMps(const std::vector<ColocationWorkload>& ws, const SharingContext& ctx,
                          const std::vector<double>& shares_in) {
  ModePrediction mode;
  mode.mode = SharingMode::kMps;
  std::vector<double> shares = shares_in;
  shares.resize(ws.size(), 1.0);
  for (double& s : shares) s = std::clamp(s, 0.01, 1.0);
  mode.sm_shares = shares;
  const double z = ctx.params.p99_z, eta = ctx.params.dram_efficiency;
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
      // Under caps that overlap, the two grids split the SMs in proportion to demand. Without
      // a cap on o, its grids of >= 1 block per SM keep w out (the SM queue below), and a
      // kernel of w that finds a smaller grid of o starts on the free SMs and takes the
      // others as o's short blocks retire: no lasting split (H100: docs/validation.md).
      // Without kernel durations (sampled metrics) the queue cannot be told: the split stays.
      const bool queue = sb >= 1 - 1e-9 && w.kernels_per_busy_s > 0 && o.kernels_per_busy_s > 0;
      const double used_b = std::min(o.mean_fill, sb);
      double f_sm = queue ? f_alone : SmFactor(w, [&](double fill) {
        double want = std::min(fill, sa);
        return want + used_b <= 1 ? want : want / (want + used_b);
      });
      double f_bw = std::max(1.0, (w.dram_intensity + o.dram_intensity) / eta);
      double m = w.memory_bound_share;
      double collide = (f_sm - f_alone) + m * (std::max(f_sm, f_bw) - f_sm);
      sm_part += q * (f_sm - f_alone);
      bw_part += q * m * (std::max(f_sm, f_bw) - f_sm);
      extra.terms.push_back({"q: P(" + o.name + " busy | busy)", q, ctx.collision[a][b].basis});
      extra.terms.push_back({"SM factor with " + o.name, f_sm,
                             queue ? std::string("no cap on it: no lasting split (SM queue below)")
                                      : "its grids get want/(want + " + F3(used_b) + ") of the SMs when both exceed the GPU"});
      extra.terms.push_back({"DRAM factor with " + o.name, f_bw,
                             "max(1, (" + F3(w.dram_intensity) + " + " + F3(o.dram_intensity) + ") / efficiency " +
                                 F3(eta) + "), applied to memory-bound share " + F3(m)});
      request_stretch_mean += q * collide;
      request_stretch_p99 += CollisionP99(q, kernels_per_request, z) * collide;
      if (queue) queue_part += AddSmQueue(w, o, q, z, &extra);
      else if (sb >= 1 - 1e-9 && sa + sb > 1) NoteOnce(&mode.notes, kNoQueueNote);
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
