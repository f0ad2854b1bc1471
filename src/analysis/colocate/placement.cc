#include "analysis/colocate/placement.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "analysis/colocate/join.h"
#include "analysis/colocate/sharing_context.h"
#include "analysis/colocate/sharing_modes.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken {
namespace {

struct GroupVerdict {
  bool feasible = false;
  ModePrediction prediction;
  double interference = 0;  // sum of (penalty - 1)
  std::string why;          // reason it was rejected or chosen
};

std::string NamesOf(const std::vector<ColocationWorkload>& ws, const std::vector<size_t>& members) {
  std::vector<std::string> names;
  for (size_t i : members) names.push_back(ws[i].name);
  return JoinText(names, " + ");
}

std::string ModeText(const ModePrediction& m) {
  std::string s = SharingModeName(m.mode);
  if (m.mode == SharingMode::kMps) {
    bool capped = std::any_of(m.sm_shares.begin(), m.sm_shares.end(), [](double v) { return v < 1; });
    if (capped) {
      std::vector<std::string> parts;
      for (double share : m.sm_shares) parts.push_back(FormatFixed(share * 100, 0));
      s += ' ';
      s += JoinText(parts, "/");
    }
  } else if (m.mode == SharingMode::kMig && !m.mig_profiles.empty()) {
    s += ' ';
    s += JoinText(m.mig_profiles, "+");
  }
  return s;
}

// Why a group prediction breaks a constraint ("" when it does not).
std::string Violation(const ModePrediction& m, const std::vector<ColocationWorkload>& ws,
                      const std::vector<size_t>& members, const PlacementOptions& opt, double memory_limit) {
  if (!m.feasible) return m.infeasible_reason;
  double memory = 0;
  for (size_t i : members) memory += ws[i].memory_bytes;
  if (memory_limit > 0 && memory > memory_limit)
    return "memory " + FormatBytes(memory) + " > " + FormatBytes(memory_limit) + " per GPU";
  for (size_t k = 0; k < m.workloads.size(); ++k) {
    const WorkloadPrediction& p = m.workloads[k];
    std::string what = p.latency_predicted ? "p99 x" : "slowdown ";
    if (!p.fits_memory) return p.name + " does not fit in memory";
    if (!p.qos_ok)
      return p.name + " " + what + FormatFixed(p.penalty, 2) + " > QoS " + FormatFixed(p.qos_max_slowdown, 2);
    if (opt.max_slowdown > 0 && p.penalty > opt.max_slowdown)
      return p.name + " " + what + FormatFixed(p.penalty, 2) + " > max " + FormatFixed(opt.max_slowdown, 2);
  }
  return "";
}

class GroupEvaluator {
 public:
  GroupEvaluator(const std::vector<ColocationWorkload>& ws, const PlacementOptions& opt, const DeviceSpec* device)
      : ws_(ws), opt_(opt), device_(device) {
    memory_limit_ = opt.gpu_memory_bytes > 0 ? opt.gpu_memory_bytes
                    : device != nullptr      ? static_cast<double>(device->memory_bytes)
                                             : 0;
  }

  const GroupVerdict& Evaluate(const std::vector<size_t>& members) {
    uint64_t key = 0;
    for (size_t i : members) key |= uint64_t{1} << i;
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    return cache_[key] = Compute(members);
  }

  double memory_limit() const { return memory_limit_; }

 private:
  GroupVerdict Compute(const std::vector<size_t>& members) {
    GroupVerdict v;
    std::vector<ColocationWorkload> group;
    for (size_t i : members) group.push_back(ws_[i]);
    SharingContext ctx = MakeSharingContext(group, opt_.colocate.params, device_);
    if (members.size() == 1) {
      // Alone on a GPU: no interference; only its memory can rule it out.
      v.prediction = PredictTimeSlice(group, ctx);
      std::string bad = Violation(v.prediction, ws_, members, opt_, memory_limit_);
      v.feasible = bad.empty();
      v.why = v.feasible ? "alone" : bad;
      return v;
    }
    bool any = false;
    std::vector<std::string> rejections;
    for (SharingMode mode : opt_.colocate.modes) {
      // A GPU without MIG is said once in the result, not for every group.
      if (mode == SharingMode::kMig && MigGeometryFor(device_).profiles.empty()) continue;
      ModePrediction m = mode == SharingMode::kTimeSlice ? PredictTimeSlice(group, ctx)
                         : mode == SharingMode::kMps     ? SuggestMpsSplit(group, ctx)
                                                         : PredictMig(group, ctx);
      std::string bad = Violation(m, ws_, members, opt_, memory_limit_);
      if (!bad.empty()) {
        rejections.push_back(ModeText(m) + ": " + bad);
        continue;
      }
      double interference = 0;
      for (const WorkloadPrediction& p : m.workloads) interference += p.penalty - 1;
      if (!any || interference < v.interference) {
        v.prediction = std::move(m);
        v.interference = interference;
        any = true;
      }
    }
    v.feasible = any;
    v.why = any ? ModeText(v.prediction) : JoinText(rejections, "; ");
    return v;
  }

  const std::vector<ColocationWorkload>& ws_;
  const PlacementOptions& opt_;
  const DeviceSpec* device_;
  double memory_limit_ = 0;
  std::map<uint64_t, GroupVerdict> cache_;
};

std::vector<size_t> MembersOf(uint32_t mask) {
  std::vector<size_t> out;
  for (size_t i = 0; i < 32; ++i)
    if (mask & (1u << i)) out.push_back(i);
  return out;
}

// Exact: best[mask] = fewest GPUs, then least interference, over partitions of mask
// into feasible groups (each partition built from the group holding its lowest member).
std::vector<std::vector<size_t>> ExactGroups(size_t n, const PlacementOptions& opt, GroupEvaluator& eval) {
  const uint32_t full = (1u << n) - 1;
  struct Best {
    int gpus = std::numeric_limits<int>::max();
    double interference = 0;
    uint32_t group = 0;
  };
  std::vector<Best> best(size_t{1} << n);
  best[0].gpus = 0;
  for (uint32_t mask = 1; mask <= full; ++mask) {
    uint32_t low = mask & (~mask + 1);
    uint32_t rest = mask ^ low;
    // Submasks of `rest`, each joined with the lowest member.
    for (uint32_t sub = rest;; sub = (sub - 1) & rest) {
      uint32_t group = sub | low;
      if (static_cast<size_t>(__builtin_popcount(group)) <= opt.max_per_gpu) {
        const Best& before = best[mask ^ group];
        if (before.gpus != std::numeric_limits<int>::max()) {
          const GroupVerdict& v = eval.Evaluate(MembersOf(group));
          if (v.feasible) {
            int gpus = before.gpus + 1;
            double interference = before.interference + v.interference;
            Best& b = best[mask];
            if (gpus < b.gpus || (gpus == b.gpus && interference < b.interference - 1e-12)) {
              b.gpus = gpus;
              b.interference = interference;
              b.group = group;
            }
          }
        }
      }
      if (sub == 0) break;
    }
  }
  std::vector<std::vector<size_t>> groups;
  if (best[full].gpus == std::numeric_limits<int>::max()) return groups;
  for (uint32_t mask = full; mask != 0; mask ^= best[mask].group) groups.push_back(MembersOf(best[mask].group));
  return groups;
}

// Greedy: the busiest workloads first; each joins the open GPU where it adds the least
// interference while every constraint holds, else opens a GPU.
std::vector<std::vector<size_t>> GreedyGroups(const std::vector<ColocationWorkload>& ws, const PlacementOptions& opt,
                                              GroupEvaluator& eval, std::vector<std::string>* reasons) {
  std::vector<size_t> order(ws.size());
  for (size_t i = 0; i < ws.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ws[a].busy > ws[b].busy; });
  std::vector<std::vector<size_t>> groups;
  std::vector<double> group_interference;
  for (size_t w : order) {
    int best = -1;
    double best_added = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].size() >= opt.max_per_gpu) continue;
      std::vector<size_t> candidate = groups[g];
      candidate.push_back(w);
      std::sort(candidate.begin(), candidate.end());
      const GroupVerdict& v = eval.Evaluate(candidate);
      if (!v.feasible) continue;
      double added = v.interference - group_interference[g];
      if (best < 0 || added < best_added) {
        best = static_cast<int>(g);
        best_added = added;
      }
    }
    if (best >= 0) {
      groups[static_cast<size_t>(best)].push_back(w);
      std::sort(groups[static_cast<size_t>(best)].begin(), groups[static_cast<size_t>(best)].end());
      group_interference[static_cast<size_t>(best)] += best_added;
    } else {
      const GroupVerdict& alone = eval.Evaluate({w});
      if (!alone.feasible) {
        reasons->push_back(ws[w].name + " cannot be placed even alone: " + alone.why);
        return {};
      }
      groups.push_back({w});
      group_interference.push_back(0);
    }
  }
  return groups;
}

}  // namespace

PlacementResult OptimizePlacement(const std::vector<ColocationWorkload>& ws, const PlacementOptions& opt) {
  PlacementResult result;
  result.gpus_available = opt.gpus;
  std::vector<std::string> device_notes;
  const DeviceSpec* device = ResolveColocationDevice(ws, opt.colocate.device, &device_notes);
  for (std::string& n : device_notes) result.reasons.push_back(std::move(n));
  if (ws.empty()) return result;
  GroupEvaluator eval(ws, opt, device);
  bool mig_allowed = std::find(opt.colocate.modes.begin(), opt.colocate.modes.end(), SharingMode::kMig) !=
                     opt.colocate.modes.end();
  if (mig_allowed && MigGeometryFor(device).profiles.empty())
    result.reasons.push_back("MIG not considered: " + (device != nullptr ? device->id + " does not support it"
                                                                         : std::string("device unknown")));
  if (eval.memory_limit() <= 0) result.reasons.push_back("GPU memory unknown: capacity not checked (--gpu-memory)");
  std::vector<std::vector<size_t>> groups;
  if (ws.size() <= opt.exact_limit && ws.size() <= 20) {
    result.method = "exact: every partition into groups of at most " + std::to_string(opt.max_per_gpu) +
                    " (dynamic programme over the 2^" + std::to_string(ws.size()) + " subsets)";
    groups = ExactGroups(ws.size(), opt, eval);
  } else {
    result.method = "greedy: busiest first, each to the GPU where it adds the least interference (" +
                    std::to_string(ws.size()) + " workloads > exact limit " + std::to_string(opt.exact_limit) + ")";
    groups = GreedyGroups(ws, opt, eval, &result.reasons);
  }
  if (groups.empty()) {
    for (size_t i = 0; i < ws.size(); ++i) {
      const GroupVerdict& alone = eval.Evaluate({i});
      if (!alone.feasible) result.reasons.push_back(ws[i].name + " cannot run even alone: " + alone.why);
    }
    if (result.reasons.empty()) result.reasons.push_back("no placement satisfies the constraints");
    return result;
  }
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  for (size_t g = 0; g < groups.size(); ++g) {
    const GroupVerdict& v = eval.Evaluate(groups[g]);
    GpuAssignment a;
    a.gpu = static_cast<int>(g);
    a.workloads = groups[g];
    a.prediction = v.prediction;
    a.reason = groups[g].size() == 1 ? NamesOf(ws, groups[g]) + " alone" : NamesOf(ws, groups[g]) + " share under " + v.why;
    for (const WorkloadPrediction& p : v.prediction.workloads) {
      if (groups[g].size() > 1)
        a.reason += "; " + p.name + std::string(p.latency_predicted ? " p99 x" : " slowdown ") + FormatFixed(p.penalty, 3);
      result.total_interference += p.penalty - 1;
    }
    result.gpus.push_back(std::move(a));
  }
  result.feasible = static_cast<int>(groups.size()) <= opt.gpus;
  result.reasons.push_back(std::to_string(groups.size()) + " GPU(s) needed of " + std::to_string(opt.gpus) +
                           " available" + (result.feasible ? "" : ": not enough GPUs for these constraints"));
  // Why not fewer GPUs: for each workload, the binding constraint that keeps it from
  // joining each other GPU's group (bounded, so that large inputs stay readable).
  const size_t kMaxLines = 24;
  size_t lines = 0;
  for (size_t g = 0; g < groups.size() && ws.size() <= opt.exact_limit; ++g) {
    for (size_t h = 0; h < groups.size(); ++h) {
      if (h == g) continue;
      for (size_t w : groups[h]) {
        std::vector<size_t> joined = groups[g];
        joined.push_back(w);
        std::sort(joined.begin(), joined.end());
        if (joined.size() > opt.max_per_gpu) continue;
        const GroupVerdict& v = eval.Evaluate(joined);
        if (v.feasible || lines >= kMaxLines) continue;
        result.reasons.push_back(ws[w].name + " cannot join GPU " + std::to_string(g) + ": " + v.why);
        ++lines;
      }
    }
  }
  return result;
}

}  // namespace kraken
