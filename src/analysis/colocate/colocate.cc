#include "analysis/colocate/colocate.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "analysis/colocate/join.h"
#include "analysis/colocate/model_validation.h"
#include "analysis/colocate/sharing_context.h"
#include "analysis/colocate/sharing_modes.h"
#include "base/text_table.h"
#include "model/device_catalog.h"

namespace kraken {

const DeviceSpec* ResolveColocationDevice(const std::vector<ColocationWorkload>& ws, const DeviceSpec* override_device,
                                          std::vector<std::string>* notes) {
  if (override_device != nullptr) return override_device;
  const DeviceSpec* device = nullptr;
  for (const ColocationWorkload& w : ws) {
    if (w.device_id.empty()) continue;
    const DeviceSpec* d = FindDeviceSpec(w.device_id);
    if (device == nullptr) {
      device = d;
    } else if (d != device) {
      notes->push_back("workloads were profiled on different GPUs; predicting for " + device->id +
                       " (pass --device to choose)");
      break;
    }
  }
  if (device == nullptr) notes->push_back("device unknown (pass --device): no MIG layouts, no memory-capacity check");
  return device;
}

namespace {

struct SplitRank {
  int qos_failures = 0;
  double worst = 0;
  double total = 0;
  bool BetterThan(const SplitRank& o) const {
    if (qos_failures != o.qos_failures) return qos_failures < o.qos_failures;
    if (std::abs(worst - o.worst) > 1e-9) return worst < o.worst;
    return total < o.total - 1e-12;
  }
};

SplitRank RankSplit(const ModePrediction& m) {
  SplitRank r;
  for (const WorkloadPrediction& p : m.workloads) {
    r.qos_failures += p.qos_ok ? 0 : 1;
    r.worst = std::max(r.worst, p.penalty);
    r.total += p.penalty;
  }
  return r;
}

std::vector<std::vector<double>> CandidateSplits(size_t n) {
  std::vector<std::vector<double>> out;
  out.push_back(std::vector<double>(n, 1.0));  // no cap
  if (n == 2) {
    for (int pct = 5; pct <= 95; pct += 5) out.push_back({pct / 100.0, (100 - pct) / 100.0});
  } else if (n == 3 || n == 4) {
    std::vector<int> tenths(n, 1);
    std::function<void(size_t, int)> fill = [&](size_t i, int left) {
      if (i + 1 == n) {
        if (left < 1) return;
        tenths[i] = left;
        std::vector<double> split;
        for (int t : tenths) split.push_back(t / 10.0);
        out.push_back(split);
        return;
      }
      for (int t = 1; t <= left - static_cast<int>(n - i - 1); ++t) {
        tenths[i] = t;
        fill(i + 1, left - t);
      }
    };
    fill(0, 10);
  } else if (n > 4) {
    out.push_back(std::vector<double>(n, 1.0 / static_cast<double>(n)));
  }
  return out;
}

std::string SplitText(const std::vector<double>& shares) {
  std::vector<std::string> parts;
  for (double share : shares) parts.push_back(FormatFixed(share * 100, 0));
  return JoinText(parts, "/");
}

}  // namespace

ModePrediction SuggestMpsSplit(const std::vector<ColocationWorkload>& ws, const SharingContext& ctx) {
  ModePrediction best;
  SplitRank best_rank;
  bool found = false;
  ModePrediction uncapped;
  for (const std::vector<double>& split : CandidateSplits(ws.size())) {
    ModePrediction m = PredictMps(ws, ctx, split);
    if (!found) uncapped = m;
    SplitRank r = RankSplit(m);
    if (!found || r.BetterThan(best_rank)) {
      best = std::move(m);
      best_rank = r;
      found = true;
    }
  }
  best.split_suggested = true;
  bool capped = std::any_of(best.sm_shares.begin(), best.sm_shares.end(), [](double s) { return s < 1; });
  SplitRank u = RankSplit(uncapped);
  best.notes.push_back(std::string("SM split ") + (capped ? SplitText(best.sm_shares) + " %" : "none (no cap)") +
                       " chosen for the lowest worst penalty with QoS first; without a cap the worst penalty is " +
                       FormatFixed(u.worst, 3));
  return best;
}

double ClassTableScore(const std::string& a, const std::string& b) {
  auto is = [&](const char* x, const char* y) { return (a == x && b == y) || (a == y && b == x); };
  if (is("compute", "memory")) return 0.95;
  if (is("compute", "mixed")) return 0.70;
  if (is("memory", "mixed")) return 0.60;
  if (is("mixed", "mixed")) return 0.35;
  if (is("compute", "compute")) return 0.25;
  if (is("memory", "memory")) return 0.15;
  return 0;
}

std::vector<std::string> ColocationAssumptions() {
  return {
      "Predictions are first-order: each co-runner's effect is computed from its solo profile (how often it is busy "
      "does not change with the slowdown it suffers), and with three or more workloads the effects add up.",
      "Phases of two busy profiles are unrelated (collision probability = the co-runner's busy fraction) unless both "
      "repeat with the same period; then round-robin settles at their phase of least overlap.",
      "Time-slicing: a co-runner that launched work while it waited (active in that millisecond) takes the GPU at "
      "each slice end and keeps it for a slice, or until the backlog it queued is done when it is busy less than half "
      "its active time.",
      "MPS without a cap: the block dispatcher serves grids in launch order, so a kernel that arrives while the "
      "co-runner runs a grid of >= 1 block per SM waits for the rest of that grid; a backlogged workload gets the "
      "time such grids leave plus one kernel per grid boundary (the smaller of the two bounds). Under caps that "
      "overlap, colliding grids split the SMs in proportion to demand.",
      "Memory bandwidth: memory-bound kernel time slows by total DRAM demand / reachable bandwidth when it exceeds "
      "it; L2-cache contention is not modelled apart from it.",
      "MIG: a slice has its fraction of SMs and of memory bandwidth and capacity, and nothing else interferes.",
      "Latency: Poisson arrivals at the given rate, M/G/1 queue with an exponential tail; without a rate, latency "
      "is the service time of one request (no queueing).",
  };
}

namespace {

ModePrediction PredictMode(SharingMode mode, const std::vector<ColocationWorkload>& ws, const SharingContext& ctx,
                           const std::vector<double>& split) {
  switch (mode) {
    case SharingMode::kTimeSlice: return PredictTimeSlice(ws, ctx);
    case SharingMode::kMps: return split.empty() ? SuggestMpsSplit(ws, ctx) : PredictMps(ws, ctx, split);
    case SharingMode::kMig: return PredictMig(ws, ctx);
  }
  return {};
}

PairScore MeasuredPairScore(const std::vector<ColocationWorkload>& ws, size_t a, size_t b,
                            const ColocateOptions& options, const DeviceSpec* device) {
  std::vector<ColocationWorkload> pair = {ws[a], ws[b]};
  SharingContext ctx = MakeSharingContext(pair, options.params, device);
  PairScore s;
  s.a = a;
  s.b = b;
  s.model = "measured";
  s.class_a = ws[a].work_class;
  s.class_b = ws[b].work_class;
  bool found = false, found_qos = false;
  for (SharingMode mode : options.modes) {
    std::vector<double> split;
    if (mode == SharingMode::kMps && options.sm_split.size() == ws.size())
      split = {options.sm_split[a], options.sm_split[b]};
    ModePrediction m = PredictMode(mode, pair, ctx, split);
    if (mode == SharingMode::kMps) s.sm_split = m.sm_shares;
    bool qos = m.feasible && m.all_qos_ok;
    // A mode meeting every QoS limit beats any that does not; then the higher score.
    if (!found || (qos && !found_qos) || (qos == found_qos && m.score > s.score)) {
      s.score = m.score;
      s.best_mode = mode;
      found = true;
      found_qos = qos;
      s.explanation = std::string(SharingModeName(mode));
      if (m.workloads.size() == 2)
        s.explanation += ": 1/" + FormatFixed(m.workloads[0].slowdown, 3) + " + 1/" +
                         FormatFixed(m.workloads[1].slowdown, 3) + " - 1";
      if (!m.feasible) s.explanation += " (infeasible: " + m.infeasible_reason + ")";
      else if (!qos) s.explanation += " (QoS not met)";
    }
  }
  return s;
}

}  // namespace

ColocationReport PredictColocation(const std::vector<ColocationWorkload>& ws, const ColocateOptions& options) {
  ColocationReport report;
  report.model = options.model;
  report.workloads = ws;
  const DeviceSpec* device = ResolveColocationDevice(ws, options.device, &report.assumptions);
  report.parameters = DescribeParameters(options.params, device);
  if (options.model == "class-table") {
    for (size_t a = 0; a < ws.size(); ++a) {
      for (size_t b = a + 1; b < ws.size(); ++b) {
        PairScore s;
        s.a = a;
        s.b = b;
        s.model = "class-table";
        s.class_a = ws[a].work_class;
        s.class_b = ws[b].work_class;
        s.score = ClassTableScore(s.class_a, s.class_b);
        s.explanation = "class-pair table: " + s.class_a + " + " + s.class_b;
        report.pairs.push_back(s);
      }
    }
    report.assumptions.push_back("class-table model: the score depends only on the two kernel-bound classes "
                                 "(compute / memory / mixed); no slowdown is predicted");
    return report;
  }
  SharingContext ctx = MakeSharingContext(ws, options.params, device);
  for (SharingMode mode : options.modes) {
    report.modes.push_back(PredictMode(mode, ws, ctx, options.sm_split));
    report.modes.back().validation = ValidationFor(report.modes.back());
  }
  for (size_t a = 0; a < ws.size(); ++a)
    for (size_t b = a + 1; b < ws.size(); ++b) report.pairs.push_back(MeasuredPairScore(ws, a, b, options, device));
  for (const std::string& line : ColocationAssumptions()) report.assumptions.push_back(line);
  return report;
}

}  // namespace kraken
