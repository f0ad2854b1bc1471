// The simulation on the real openb trace: the published medians of the FGD paper, the
// Kraken policy's target, and every placement checked by an independent replay.
#include "analysis/pack/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>

#include "analysis/pack/sweep.h"
#include "base/testing/test_data.h"
#include "importers/openb/openb_loader.h"

namespace kraken::pack {
namespace {

PackProblem LoadDefault(size_t keep_pods = 0, bool constrain_models = false) {
  auto nodes = LoadOpenbNodes(testing::DataPath("alibaba-gpu-v2023/openb_node_list_gpu_node.csv"));
  auto pods = LoadOpenbPods(testing::DataPath("alibaba-gpu-v2023/openb_pod_list_default.csv"));
  EXPECT_TRUE(nodes.ok() && pods.ok());
  std::vector<PodRequest> list = pods->pods;
  if (keep_pods > 0 && list.size() > keep_pods) list.resize(keep_pods);
  if (constrain_models) {  // like the paper's gpuspec traces: a third of the GPU pods pinned to two models
    int gpu_pods = 0;
    for (PodRequest& p : list)
      if (p.num_gpu > 0 && gpu_pods++ % 3 == 0) p.gpu_spec = {"V100M32", "G3"};
  }
  auto problem = PreparePackProblem(nodes->nodes, std::move(list));
  EXPECT_TRUE(problem.ok());
  return std::move(problem).value();
}

bool ModelAllowedByName(const PodRequest& pod, const ClusterNode& node) {
  if (pod.gpu_spec.empty()) return true;
  return std::find(pod.gpu_spec.begin(), pod.gpu_spec.end(), node.gpu_model) != pod.gpu_spec.end();
}

// Replays the placements on its own bookkeeping (no code shared with ClusterState) and
// checks every rule; a failed pod must have fitted nowhere at that moment.
void CheckPlacements(const PackProblem& problem, const ExperimentResult& result) {
  const size_t n = problem.nodes.size();
  std::vector<int64_t> cpu(n, 0), mem(n, 0);
  std::vector<std::array<int32_t, kMaxGpusPerNode>> used(n);
  for (auto& u : used) u.fill(0);
  auto fits = [&](const PodRequest& pod, size_t i) {
    const ClusterNode& node = problem.nodes[i];
    if (cpu[i] + pod.cpu_milli > node.cpu_milli || mem[i] + pod.memory_mib > node.memory_mib) return false;
    if (pod.num_gpu == 0) return true;
    if (!ModelAllowedByName(pod, node)) return false;
    int32_t usable = 0;
    for (int32_t g = 0; g < node.gpu_count; ++g) usable += used[i][g] + pod.gpu_milli <= kMilliPerGpu ? 1 : 0;
    return usable >= pod.num_gpu;
  };
  ASSERT_EQ(static_cast<int64_t>(result.placements.size()), result.pods_submitted);
  int64_t failed = 0;
  for (const PlacementRecord& r : result.placements) {
    const PodRequest& pod = problem.pods[static_cast<size_t>(r.pod)];
    if (r.node < 0) {
      ++failed;
      for (size_t i = 0; i < n; ++i) ASSERT_FALSE(fits(pod, i)) << pod.name << " failed but fits " << i;
      continue;
    }
    const auto i = static_cast<size_t>(r.node);
    const ClusterNode& node = problem.nodes[i];
    ASSERT_EQ(std::popcount(static_cast<unsigned>(r.gpus)), pod.num_gpu) << pod.name;
    if (pod.num_gpu > 0) {
      ASSERT_TRUE(ModelAllowedByName(pod, node)) << pod.name << " on " << node.gpu_model;
    }
    for (int32_t g = 0; g < kMaxGpusPerNode; ++g) {
      if (!((r.gpus >> g) & 1u)) continue;
      ASSERT_LT(g, node.gpu_count);
      if (pod.num_gpu > 1 || pod.gpu_milli == kMilliPerGpu) {
        ASSERT_EQ(used[i][g], 0) << "whole GPU already in use";
      }
      used[i][g] += pod.gpu_milli;
      ASSERT_LE(used[i][g], kMilliPerGpu) << "GPU over-allocated on " << node.name;
    }
    cpu[i] += pod.cpu_milli;
    mem[i] += pod.memory_mib;
    ASSERT_LE(cpu[i], node.cpu_milli) << "CPU over-allocated on " << node.name;
    ASSERT_LE(mem[i], node.memory_mib) << "memory over-allocated on " << node.name;
  }
  EXPECT_EQ(failed, result.pods_failed);
}

TEST(SimulationTest, PublishedPoliciesReproduceTheFgdPaperAndKrakenBeatsFgd) {
  PackProblem problem = LoadDefault();
  SweepOptions options;
  options.threads = 2;
#ifdef KRAKEN_SANITIZE_BUILD
  // 10x slower under the sanitizers: 3 seeds, so the medians may stray further.
  options.seeds = {42, 43, 44};
  const double tolerance = 1.0;
#else
  const double tolerance = 0.5;
#endif
  auto summaries = RunSweep(problem, PolicyNames(), options);
  ASSERT_TRUE(summaries.ok()) << summaries.status().message();
  // Median unallocated GPU % at arrived = 100%, openb_pod_list_default, seeds 42-51, from
  // the authors' result files (shared/docs/fgd-protocol.md, Table A).
  const std::map<std::string, double> published = {{"Random", 13.75},    {"DotProd", 9.44}, {"GpuClustering", 8.42},
                                                   {"GpuPacking", 8.19}, {"BestFit", 7.09}, {"FGD", 4.77}};
  std::map<std::string, double> ours;
  for (const PolicySummary& s : *summaries) ours[s.policy] = s.median_unallocated_at_100;
  for (const auto& [policy, value] : published) EXPECT_NEAR(ours[policy], value, tolerance) << policy;
  EXPECT_LE(ours["Kraken"], 4.0);
  EXPECT_LT(ours["Kraken"], ours["FGD"] - 0.5);
  // Every policy's curve covers the paper's x range and ends at 130%.
  for (const PolicySummary& s : *summaries) {
    ASSERT_FALSE(s.median_curve.empty());
    EXPECT_EQ(s.median_curve.front().arrived_pct, 0);
    EXPECT_EQ(s.median_curve.back().arrived_pct, 130) << s.policy;
    // At arrived 0 (the events before 0.5% arrived) the cluster is nearly empty; the
    // paper's results read 13.88-14.08% fragmentation there.
    EXPECT_GT(UnallocatedAt(s.median_curve, 0), 99.7);
    EXPECT_GE(s.median_curve.front().frag_pct, 13.88) << s.policy;
    EXPECT_LE(s.median_curve.front().frag_pct, 14.08) << s.policy;
  }
}

TEST(SimulationTest, PlacementsRespectEveryConstraint) {
  PackProblem problem = LoadDefault();
  const FragmentMeter meter(problem.typical);
  for (const std::string& name : PolicyNames()) {
    auto policy = MakePolicy(name, problem);
    ExperimentOptions options;
    options.seed = 42;
    options.record_placements = true;
    auto result = RunExperiment(problem, meter, *policy, options);
    ASSERT_TRUE(result.ok()) << result.status().message();
    CheckPlacements(problem, *result);
    EXPECT_GT(result->pods_failed, 1000) << name;  // 130% of capacity cannot all fit
  }
}

TEST(SimulationTest, GpuModelConstraintsAreRespected) {
  PackProblem problem = LoadDefault(4000, /*constrain_models=*/true);
  const FragmentMeter meter(problem.typical);
  for (const std::string& name : PolicyNames()) {
    auto policy = MakePolicy(name, problem);
    ExperimentOptions options;
    options.seed = 7;
    options.record_placements = true;
    auto result = RunExperiment(problem, meter, *policy, options);
    ASSERT_TRUE(result.ok()) << result.status().message();
    CheckPlacements(problem, *result);
  }
}

TEST(SimulationTest, SameSeedSameResultAndExplanations) {
  PackProblem problem = LoadDefault(3000);
  const FragmentMeter meter(problem.typical);
  auto policy = MakePolicy("Kraken", problem);
  ExperimentOptions options;
  options.seed = 3;
  options.explain_positions = {0, 500};
  options.explain_candidates = 4;
  auto a = RunExperiment(problem, meter, *policy, options);
  auto b = RunExperiment(problem, meter, *policy, options);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->curve.size(), b->curve.size());
  for (size_t i = 0; i < a->curve.size(); ++i) EXPECT_EQ(a->curve[i].unallocated_pct, b->curve[i].unallocated_pct);
  ASSERT_EQ(a->explanations.size(), 2u);
  for (const PlacementExplanation& e : a->explanations) {
    ASSERT_EQ(e.candidates.size(), 4u);
    EXPECT_GT(e.feasible_nodes, 4);
    EXPECT_EQ(e.candidates[0].node, e.chosen_node);  // the best candidate is the one chosen
    for (size_t i = 1; i < e.candidates.size(); ++i) {
      EXPECT_GE(e.candidates[i - 1].score.score, e.candidates[i].score.score);
      if (e.candidates[i - 1].score.score == e.candidates[i].score.score) {
        EXPECT_LT(e.candidates[i - 1].rank, e.candidates[i].rank);  // ties: lowest rank first
      }
    }
  }
  EXPECT_EQ(a->explanations[1].position, 500);
}

}  // namespace
}  // namespace kraken::pack
