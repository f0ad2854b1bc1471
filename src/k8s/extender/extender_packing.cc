#include "k8s/extender/extender_packing.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/pack/cluster_state.h"
#include "analysis/pack/policy.h"
#include "base/text_table.h"

namespace kraken::k8s {
namespace {

// GPU milli of one share on a node with `replicas` shares per GPU.
int32_t ShareMilli(int replicas) { return replicas > 1 ? kMilliPerGpu / replicas : kMilliPerGpu; }

PodRequest PendingRequest(const PackingNode& n, int64_t pod_gpus) {
  PodRequest p;
  p.name = "~pending";  // sorts after pod names; only its shape matters
  bool sharing = pod_gpus == 1 && n.replicas > 1;
  p.num_gpu = sharing ? 1 : static_cast<int32_t>(pod_gpus);
  p.gpu_milli = sharing ? ShareMilli(n.replicas) : kMilliPerGpu;
  return p;
}

pack::PodShape ShapeOf(const PodRequest& p) {
  pack::PodShape s;
  s.num_gpu = p.num_gpu;
  s.gpu_milli = p.gpu_milli;
  return s;
}

void Finish(const ExtenderOptions& o, double raw, double term, const std::string& how, NodeDecision* d) {
  d->packing_term = term;
  double score = o.interference_weight * d->interference_term + o.packing_weight * term;
  d->score = std::clamp<int64_t>(std::llround(score * kMaxExtenderPriority), 0, kMaxExtenderPriority);
  d->reason += "; packing " + o.packing_policy + " " + (std::isnan(raw) ? "not scored" : FormatFixed(raw, 0)) + " -> " +
               FormatFixed(term, 3) + " (" + how + "); score = 100 x (" + FormatFixed(o.interference_weight, 2) +
               " x " + FormatFixed(d->interference_term, 3) + " + " + FormatFixed(o.packing_weight, 2) + " x " +
               FormatFixed(term, 3) + ") = " + std::to_string(d->score);
}

}  // namespace

void ScorePacking(const std::vector<PackingNode>& nodes, int64_t pod_gpus, const ExtenderOptions& options,
                  std::vector<NodeDecision>* decisions) {
  if (nodes.empty()) return;
  std::vector<ClusterNode> cluster;
  std::vector<PodRequest> pods;
  std::set<std::pair<int32_t, int32_t>> pending_shapes;
  for (const PackingNode& n : nodes) {
    cluster.push_back({n.name, 0, 0, n.gpus, ""});
    for (size_t i = 0; i < n.residents.size(); ++i)
      pods.push_back({n.name + "#" + std::to_string(i), 0, 0, 1, ShareMilli(n.replicas), {}});
    PodRequest p = PendingRequest(n, pod_gpus);
    if (pending_shapes.insert({p.num_gpu, p.gpu_milli}).second) pods.push_back(p);
  }
  auto problem = pack::PreparePackProblem(std::move(cluster), std::move(pods));
  std::unique_ptr<pack::PackingPolicy> policy =
      problem.ok() ? pack::MakePolicy(options.packing_policy, *problem) : nullptr;
  if (policy == nullptr) {
    std::string why = problem.ok() ? "unknown policy" : problem.status().message();
    for (const PackingNode& n : nodes) Finish(options, NAN, 1.0, why + ": neutral", &(*decisions)[n.decision]);
    return;
  }
  pack::FragmentMeter meter(problem->typical);
  pack::ClusterState state(*problem, meter);
  std::vector<double> raw(nodes.size(), NAN);
  std::vector<std::string> notes(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const PackingNode& n = nodes[i];
    PodRequest share{"", 0, 0, 1, ShareMilli(n.replicas), {}};
    for (const DemandEntry& r : n.residents) {
      Status placed = state.Place(static_cast<int>(i), ShapeOf(share),
                                  static_cast<pack::GpuMask>(1u << std::clamp(r.gpu, 0, pack::kMaxGpusPerNode - 1)));
      if (!placed.ok()) notes[i] = "a resident could not be placed: " + placed.message() + "; ";
    }
  }
  pack::PackRng rng(0);  // BestFit and FGD never draw; Random would, with this fixed seed
  for (size_t i = 0; i < nodes.size(); ++i) {
    pack::PodShape shape = ShapeOf(PendingRequest(nodes[i], pod_gpus));
    if (state.Fits(static_cast<int>(i), shape)) raw[i] = policy->Score(state, static_cast<int>(i), shape, rng);
  }
  double lo = INFINITY, hi = -INFINITY;
  for (double r : raw)
    if (!std::isnan(r)) lo = std::min(lo, r), hi = std::max(hi, r);
  for (size_t i = 0; i < nodes.size(); ++i) {
    double term = 1.0;
    std::string how = notes[i];
    if (std::isnan(raw[i])) {
      term = 0.0;
      how += "the pack model finds no room for the request";
    } else if (hi > lo) {
      term = (raw[i] - lo) / (hi - lo);
      how += "min-max over the " + std::to_string(nodes.size()) + " node(s) scored: " + FormatFixed(lo, 0) + ".." +
             FormatFixed(hi, 0);
    } else {
      how += "all scored nodes equal";
    }
    Finish(options, raw[i], term, how, &(*decisions)[nodes[i].decision]);
  }
}

}  // namespace kraken::k8s
