#include "app/pack_request.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "analysis/pack/cluster_state.h"
#include "analysis/pack/policy.h"
#include "analysis/pack/sweep.h"
#include "analysis/pack/workload.h"
#include "base/text.h"
#include "importers/openb/openb_loader.h"
#include "report/pack_output.h"

namespace kraken {
namespace {

// Bounds that keep one request from occupying the machine (or the server) indefinitely;
// the paper's protocol uses 10 seeds, tune 1.3 and a handful of threads.
constexpr double kMaxTune = 5;
constexpr int kMaxThreads = 256;

// "42-51", "1,5,9" or a mix ("1-3,7").
Result<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  for (std::string_view item : Split(text, ',')) {
    item = Trim(item);
    size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      auto seed = ParseUint64(item);
      if (!seed) return InvalidInput("--seeds: '" + std::string(item) + "' is not a seed");
      seeds.push_back(*seed);
      continue;
    }
    auto first = ParseUint64(item.substr(0, dash));
    auto last = ParseUint64(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 10000)
      return InvalidInput("--seeds: '" + std::string(item) + "' is not a range FIRST-LAST");
    for (uint64_t s = *first; s <= *last; ++s) seeds.push_back(s);
  }
  if (seeds.empty()) return InvalidInput("--seeds: no seed given");
  return seeds;
}

Result<std::vector<std::string>> ParsePolicies(const std::string& text) {
  if (EqualsIgnoreCase(Trim(text), "all")) return pack::PolicyNames();
  std::vector<std::string> out;
  for (std::string_view item : Split(text, ',')) {
    item = Trim(item);
    bool known = false;
    for (const std::string& name : pack::PolicyNames()) {
      if (EqualsIgnoreCase(item, name)) {
        out.push_back(name);
        known = true;
      }
    }
    if (!known) {
      std::string names;
      for (const std::string& name : pack::PolicyNames()) {
        if (!names.empty()) names += ", ";
        names += name;
      }
      return InvalidInput("--policy: unknown policy '" + std::string(item) + "' (known: " + names + ", all)");
    }
  }
  return out;
}

Result<std::string> RenderExplain(const pack::PackProblem& problem, const PackSettings& settings, const PackPlan& plan,
                                  bool json) {
  const uint64_t seed = plan.seeds.front();
  const pack::FragmentMeter meter(problem.typical);
  std::vector<std::unique_ptr<pack::PackingPolicy>> made;
  PackExplainReport report;
  report.problem = &problem;
  report.seed = seed;
  report.tune_ratio = settings.tune;
  pack::ExperimentOptions options;
  options.seed = seed;
  options.tune_ratio = settings.tune;
  options.explain_candidates = settings.explain_top;
  options.explain_positions = settings.explain_pods;
  if (options.explain_positions.empty()) options.explain_positions = {0, 1, 2};
  const size_t submitted = pack::BuildArrival(problem, seed, settings.tune).pods.size();
  for (int64_t position : options.explain_positions)
    if (position < 0 || static_cast<size_t>(position) >= submitted)
      return InvalidInput("--explain-pod " + std::to_string(position) + ": seed " + std::to_string(seed) +
                          " submits pods 0.." + std::to_string(submitted - 1));
  for (const std::string& name : plan.policies) {
    made.push_back(pack::MakePolicy(name, problem));
    KRAKEN_ASSIGN_OR_RETURN(pack::ExperimentResult result, pack::RunExperiment(problem, meter, *made.back(), options));
    report.runs.push_back({made.back().get(), std::move(result)});
  }
  return json ? RenderPackExplainJson(report) : RenderPackExplainText(report);
}

}  // namespace

Result<PackPlan> MakePackPlan(const PackSettings& settings) {
  PackPlan plan;
  KRAKEN_ASSIGN_OR_RETURN(plan.seeds, ParseSeeds(settings.seeds));
  KRAKEN_ASSIGN_OR_RETURN(plan.policies, ParsePolicies(settings.policy));
  if (!(settings.threshold > 0 && settings.threshold <= 100)) return InvalidInput("--threshold must be in (0, 100]");
  if (!(settings.tune > 0 && settings.tune <= kMaxTune))
    return InvalidInput("--tune must be in (0, " + std::to_string(static_cast<int>(kMaxTune)) + "]");
  if (settings.threads > kMaxThreads) return InvalidInput("--threads must be at most " + std::to_string(kMaxThreads));
  return plan;
}

Result<LoadedPackCluster> LoadPackCluster(const std::string& nodes_path, const std::string& pods_path) {
  KRAKEN_ASSIGN_OR_RETURN(OpenbNodeList nodes, LoadOpenbNodes(nodes_path));
  KRAKEN_ASSIGN_OR_RETURN(OpenbPodList pods, LoadOpenbPods(pods_path));
  return LoadedPackCluster{PackCluster{std::move(nodes.nodes), std::move(pods.pods), nodes_path, pods_path},
                           std::move(nodes.counters), std::move(pods.counters)};
}

Result<std::string> RenderPack(PackCluster cluster, const PackSettings& settings, const PackPlan& plan, bool json) {
  pack::PackOptions pack_options;
  pack_options.popularity_threshold_pct = settings.threshold;
  auto problem = pack::PreparePackProblem(std::move(cluster.nodes), std::move(cluster.pods), pack_options);
  if (!problem.ok()) return problem.status().WithContext(cluster.nodes_name + " + " + cluster.pods_name);
  if (settings.explain || !settings.explain_pods.empty()) return RenderExplain(*problem, settings, plan, json);

  pack::SweepOptions options;
  options.seeds = plan.seeds;
  options.tune_ratio = settings.tune;
  options.threads = std::max(1, settings.threads);
  auto start = std::chrono::steady_clock::now();
  KRAKEN_ASSIGN_OR_RETURN(std::vector<pack::PolicySummary> summaries, pack::RunSweep(*problem, plan.policies, options));

  PackReport report;
  report.nodes_file = cluster.nodes_name;
  report.pods_file = cluster.pods_name;
  report.problem = &problem.value();
  const pack::FragmentMeter meter(problem->typical);
  const pack::ClusterState empty(*problem, meter);
  report.empty_cluster_frag_pct = 100 * empty.total_fragment() / static_cast<double>(problem->gpu_capacity_milli);
  report.seeds = plan.seeds;
  report.tune_ratio = settings.tune;
  report.threads = options.threads;
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.summaries = std::move(summaries);
  return json ? RenderPackJson(report) : RenderPackText(report);
}

}  // namespace kraken
