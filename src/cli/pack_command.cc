// `kraken pack --nodes FILE --pods FILE`: simulates placing GPU-sharing pods on a cluster
// with the FGD paper's protocol and compares placement policies (docs/packing.md).
#include <chrono>
#include <cstdio>

#include "analysis/pack/sweep.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/openb/openb_loader.h"
#include "report/pack_output.h"

namespace kraken::cli {
namespace {

struct PackArgs {
  std::string nodes;
  std::string pods;
  std::string policy = "all";
  std::string seeds = "42-51";
  double tune = 1.3;
  double threshold = 95;
  int threads = 2;
  bool json = false;
  bool explain = false;
  std::vector<int64_t> explain_pods;
  size_t explain_top = 5;
  std::string output = "-";
};

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

Result<pack::PackProblem> LoadProblem(const PackArgs& args) {
  KRAKEN_ASSIGN_OR_RETURN(OpenbNodeList nodes, LoadOpenbNodes(args.nodes));
  KRAKEN_ASSIGN_OR_RETURN(OpenbPodList pods, LoadOpenbPods(args.pods));
  for (const auto& [name, count] : nodes.counters)
    std::fprintf(stderr, "kraken: %s: %s = %lld\n", args.nodes.c_str(), name.c_str(), static_cast<long long>(count));
  for (const auto& [name, count] : pods.counters)
    std::fprintf(stderr, "kraken: %s: %s = %lld\n", args.pods.c_str(), name.c_str(), static_cast<long long>(count));
  pack::PackOptions options;
  options.popularity_threshold_pct = args.threshold;
  auto problem = pack::PreparePackProblem(std::move(nodes.nodes), std::move(pods.pods), options);
  if (!problem.ok()) return problem.status().WithContext(args.nodes + " + " + args.pods);
  return problem;
}

int RunExplain(const PackArgs& args, const pack::PackProblem& problem, const std::vector<std::string>& policies,
               uint64_t seed) {
  const pack::FragmentMeter meter(problem.typical);
  std::vector<std::unique_ptr<pack::PackingPolicy>> made;
  PackExplainReport report;
  report.problem = &problem;
  report.seed = seed;
  report.tune_ratio = args.tune;
  pack::ExperimentOptions options;
  options.seed = seed;
  options.tune_ratio = args.tune;
  options.explain_candidates = args.explain_top;
  options.explain_positions = args.explain_pods;
  if (options.explain_positions.empty()) options.explain_positions = {0, 1, 2};
  const size_t submitted = pack::BuildArrival(problem, seed, args.tune).pods.size();
  for (int64_t position : options.explain_positions)
    if (position < 0 || static_cast<size_t>(position) >= submitted)
      return ReportError(InvalidInput("--explain-pod " + std::to_string(position) + ": seed " + std::to_string(seed) +
                                      " submits pods 0.." + std::to_string(submitted - 1)));
  for (const std::string& name : policies) {
    made.push_back(pack::MakePolicy(name, problem));
    auto result = pack::RunExperiment(problem, meter, *made.back(), options);
    if (!result.ok()) return ReportError(result.status());
    report.runs.push_back({made.back().get(), std::move(result).value()});
  }
  Status status = WriteOutput(args.output, args.json ? RenderPackExplainJson(report) : RenderPackExplainText(report));
  return status.ok() ? kExitOk : ReportError(status);
}

int RunPack(const PackArgs& args) {
  auto seeds = ParseSeeds(args.seeds);
  if (!seeds.ok()) return ReportError(seeds.status());
  auto policies = ParsePolicies(args.policy);
  if (!policies.ok()) return ReportError(policies.status());
  if (!(args.threshold > 0 && args.threshold <= 100))
    return ReportError(InvalidInput("--threshold must be in (0, 100]"));
  auto problem = LoadProblem(args);
  if (!problem.ok()) return ReportError(problem.status());
  if (args.explain || !args.explain_pods.empty()) return RunExplain(args, *problem, *policies, seeds->front());

  pack::SweepOptions options;
  options.seeds = *seeds;
  options.tune_ratio = args.tune;
  options.threads = std::max(1, args.threads);
  auto start = std::chrono::steady_clock::now();
  auto summaries = pack::RunSweep(*problem, *policies, options);
  if (!summaries.ok()) return ReportError(summaries.status());

  PackReport report;
  report.nodes_file = args.nodes;
  report.pods_file = args.pods;
  report.problem = &problem.value();
  const pack::FragmentMeter meter(problem->typical);
  const pack::ClusterState empty(*problem, meter);
  report.empty_cluster_frag_pct = 100 * empty.total_fragment() / static_cast<double>(problem->gpu_capacity_milli);
  report.seeds = *seeds;
  report.tune_ratio = args.tune;
  report.threads = options.threads;
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.summaries = std::move(summaries).value();
  Status status = WriteOutput(args.output, args.json ? RenderPackJson(report) : RenderPackText(report));
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace

void AddPackCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<PackArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pack", "Simulate packing GPU-sharing pods onto a cluster (FGD paper protocol) and compare placement policies");
  cmd->add_option("--nodes", args->nodes, "Node list CSV (openb: sn,cpu_milli,memory_mib,gpu,model)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--pods", args->pods, "Pod list CSV (openb: name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec])")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--policy", args->policy,
                  "Policy name, comma list or 'all': Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD, Kraken")
      ->capture_default_str();
  cmd->add_option("--seeds", args->seeds, "Seeds: a range FIRST-LAST or a comma list (one experiment each)")
      ->capture_default_str();
  cmd->add_option("--tune", args->tune, "Submit pods until their GPU request is this multiple of GPU capacity")
      ->capture_default_str();
  cmd->add_option("--threshold", args->threshold, "Typical pods cover this % of the pod list (FGD: 95)")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Experiments run in parallel")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/packing.md)");
  cmd->add_flag("--explain", args->explain,
                "Explain the first placements of the first seed instead of the sweep: candidate nodes, score parts, "
                "assumptions");
  cmd->add_option("--explain-pod", args->explain_pods,
                  "Explain the pod at this 0-based position of the arrival order (repeatable; implies --explain)");
  cmd->add_option("--explain-top", args->explain_top, "Candidate nodes listed per explained pod")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunPack(*args); }});
}

}  // namespace kraken::cli
