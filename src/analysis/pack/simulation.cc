#include "analysis/pack/simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kraken::pack {
namespace {

// The policies' own draws (Random's node and GPU) use a stream separate from the
// arrival's, so that every policy sees the same pod order and node ranks for a seed.
constexpr uint64_t kPolicyStreamOffset = 0x9E3779B97F4A7C15ull;

double Round2(double x) { return std::nearbyint(x * 100) / 100; }

struct Bucket {
  double alloc_pct_sum = 0;
  double fragment_sum = 0;
  double ratio_sum = 0;
  int64_t events = 0;
  int64_t ratio_events = 0;
};

class CurveRecorder {
 public:
  CurveRecorder(int64_t capacity_milli, int64_t max_arrived_milli) : capacity_(static_cast<double>(capacity_milli)) {
    buckets_.resize(static_cast<size_t>(std::ceil(100.0 * static_cast<double>(max_arrived_milli) / capacity_)) + 2);
  }

  void Record(int64_t arrived_milli, int64_t allocated_milli, double fragment_milli, int64_t idle_milli) {
    // nearbyint rounds half to even, like Python's round() in the reference's scripts.
    const auto x = static_cast<size_t>(std::nearbyint(100.0 * static_cast<double>(arrived_milli) / capacity_));
    Bucket& b = buckets_[std::min(x, buckets_.size() - 1)];
    b.alloc_pct_sum += Round2(100.0 * static_cast<double>(allocated_milli) / capacity_);
    b.fragment_sum += fragment_milli;
    ++b.events;
    if (idle_milli > 0) {
      b.ratio_sum += 100.0 * fragment_milli / static_cast<double>(idle_milli);
      ++b.ratio_events;
    }
  }

  std::vector<CurvePoint> Curve() const {
    std::vector<CurvePoint> curve;
    size_t end = buckets_.size();
    while (end > 0 && buckets_[end - 1].events == 0) --end;  // no points past the last event
    for (size_t x = 0; x < end; ++x) {
      Bucket sum = buckets_[x];
      if (sum.events == 0) {  // the reference's fallback: the neighbours' events together
        for (size_t y = x == 0 ? 0 : x - 1; y <= x + 1 && y < end; ++y) {
          if (y == x) continue;
          sum.alloc_pct_sum += buckets_[y].alloc_pct_sum;
          sum.fragment_sum += buckets_[y].fragment_sum;
          sum.ratio_sum += buckets_[y].ratio_sum;
          sum.events += buckets_[y].events;
          sum.ratio_events += buckets_[y].ratio_events;
        }
        if (sum.events == 0) continue;
      }
      const double events = static_cast<double>(sum.events);
      CurvePoint p;
      p.arrived_pct = static_cast<int32_t>(x);
      p.unallocated_pct = 100 - Round2(sum.alloc_pct_sum / events);
      p.frag_pct = Round2(100.0 * sum.fragment_sum / events / capacity_);
      p.frag_ratio_pct = sum.ratio_events > 0 ? Round2(sum.ratio_sum / static_cast<double>(sum.ratio_events)) : 0;
      curve.push_back(p);
    }
    return curve;
  }

 private:
  double capacity_;
  std::vector<Bucket> buckets_;
};

// A score remembered until the node changes (version + 1; 0 = empty).
struct CachedScore {
  uint32_t version_plus_one = 0;
  double score = 0;
};

// A policy's node scores for one run, through the cache when the policy allows it.
struct NodeScorer {
  const PackingPolicy& policy;
  PackRng& rng;
  std::vector<CachedScore>& cache;  // node x score key; empty when the policy is not cacheable
  size_t keys;
  bool cacheable;

  double Score(const ClusterState& state, int32_t node, const PodShape& pod) {
    if (!cacheable) return policy.Score(state, node, pod, rng);
    CachedScore& cached = cache[static_cast<size_t>(node) * keys + static_cast<size_t>(pod.score_key)];
    const uint32_t stamp = state.node(node).version + 1;
    if (cached.version_plus_one != stamp) {
      cached.score = policy.Score(state, node, pod, rng);
      cached.version_plus_one = stamp;
    }
    return cached.score;
  }
};

using ScoredNodes = std::vector<std::pair<double, int32_t>>;  // (score, node), for explanations

struct NodeChoice {
  double best_score = -std::numeric_limits<double>::infinity();
  int32_t best_node = -1;
  int32_t feasible = 0;
};

// The best-scoring node the pod fits on, scanned in rank order; candidates (null when the
// placement is not explained) gets every feasible node's score.
NodeChoice ChooseNode(const ClusterState& state, const std::vector<int32_t>& nodes_by_rank, const PodShape& pod,
                      NodeScorer& scorer, ScoredNodes* candidates) {
  NodeChoice choice;
  for (int32_t node : nodes_by_rank) {
    if (!state.Fits(node, pod)) continue;
    ++choice.feasible;
    const double score = scorer.Score(state, node, pod);
    if (score > choice.best_score) {  // strict: among equal scores the lowest rank stays
      choice.best_score = score;
      choice.best_node = node;
    }
    if (candidates) candidates->emplace_back(score, node);
  }
  return choice;
}

std::vector<int32_t> RankOfNodes(const std::vector<int32_t>& nodes_by_rank, int node_count) {
  std::vector<int32_t> rank_of(static_cast<size_t>(node_count));
  for (int r = 0; r < node_count; ++r) rank_of[static_cast<size_t>(nodes_by_rank[static_cast<size_t>(r)])] = r;
  return rank_of;
}

// The choice's best candidates with their score parts; sorts candidates in place.
PlacementExplanation ExplainChoice(const ClusterState& state, const PackingPolicy& policy, const PodShape& pod,
                                   const NodeChoice& choice, ScoredNodes& candidates,
                                   const std::vector<int32_t>& rank_of, size_t max_candidates) {
  PlacementExplanation e;
  e.feasible_nodes = choice.feasible;
  e.chosen_node = choice.best_node;
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });  // ranks stay in order
  for (size_t i = 0; i < candidates.size() && i < max_candidates; ++i) {
    const int32_t node = candidates[i].second;
    e.candidates.push_back(
        {node, rank_of[static_cast<size_t>(node)], state.node(node), policy.Explain(state, node, pod)});
    e.candidates.back().score.score = candidates[i].first;  // the score the choice used
  }
  return e;
}

}  // namespace

double UnallocatedAt(const std::vector<CurvePoint>& curve, int32_t arrived_pct) {
  for (const CurvePoint& p : curve)
    if (p.arrived_pct == arrived_pct) return p.unallocated_pct;
  return std::numeric_limits<double>::quiet_NaN();
}

Result<ExperimentResult> RunExperiment(const PackProblem& problem, const FragmentMeter& meter,
                                       const PackingPolicy& policy, const ExperimentOptions& options) {
  const Arrival arrival = BuildArrival(problem, options.seed, options.tune_ratio);
  ClusterState state(problem, meter);
  PackRng rng(options.seed + kPolicyStreamOffset);
  ExperimentResult result;
  result.policy = std::string(policy.name());
  result.seed = options.seed;

  int64_t total_request = 0;
  for (int32_t pod : arrival.pods) total_request += problem.pods[static_cast<size_t>(pod)].TotalGpuMilli();
  CurveRecorder recorder(problem.gpu_capacity_milli, total_request);
  recorder.Record(0, 0, state.total_fragment(), state.idle_gpu_milli());

  const int node_count = state.size();
  const std::vector<int32_t> rank_of = RankOfNodes(arrival.nodes_by_rank, node_count);
  const bool cacheable = policy.cacheable();
  const auto keys = static_cast<size_t>(problem.score_keys);
  std::vector<CachedScore> cache(cacheable ? static_cast<size_t>(node_count) * keys : 0);
  NodeScorer scorer{policy, rng, cache, keys, cacheable};
  std::vector<int64_t> explain = options.explain_positions;
  std::sort(explain.begin(), explain.end());
  if (options.record_placements) result.placements.reserve(arrival.pods.size());

  int64_t arrived = 0;
  ScoredNodes candidates;
  for (size_t position = 0; position < arrival.pods.size(); ++position) {
    const int32_t pod_index = arrival.pods[position];
    const PodShape& pod = problem.shapes[static_cast<size_t>(problem.pod_shape[static_cast<size_t>(pod_index)])];
    arrived += pod.TotalGpuMilli();
    const bool explaining = std::binary_search(explain.begin(), explain.end(), static_cast<int64_t>(position));
    if (explaining) candidates.clear();

    const NodeChoice choice =
        ChooseNode(state, arrival.nodes_by_rank, pod, scorer, explaining ? &candidates : nullptr);
    if (explaining) {
      PlacementExplanation e =
          ExplainChoice(state, policy, pod, choice, candidates, rank_of, options.explain_candidates);
      e.position = static_cast<int64_t>(position);
      e.pod = pod_index;
      result.explanations.push_back(std::move(e));
    }

    PlacementRecord record{pod_index, -1, 0};
    if (const int32_t best_node = choice.best_node; best_node >= 0) {
      const GpuMask gpus = pod.num_gpu > 0 ? policy.SelectGpus(state, best_node, pod, rng) : GpuMask{0};
      Status placed = state.Place(best_node, pod, gpus);
      if (!placed.ok())
        return placed.WithContext(std::string(policy.name()) + " placing pod " +
                                  problem.pods[static_cast<size_t>(pod_index)].name);
      record.node = best_node;
      record.gpus = gpus;
    } else {
      ++result.pods_failed;
      result.gpu_milli_failed += pod.TotalGpuMilli();
    }
    if (options.record_placements) result.placements.push_back(record);
    recorder.Record(arrived, state.allocated_gpu_milli(), state.total_fragment(), state.idle_gpu_milli());
  }

  result.pods_submitted = static_cast<int64_t>(arrival.pods.size());
  result.arrived_gpu_milli = arrived;
  result.allocated_gpu_milli = state.allocated_gpu_milli();
  result.final_fragment_milli = state.total_fragment();
  result.curve = recorder.Curve();
  return result;
}

}  // namespace kraken::pack
