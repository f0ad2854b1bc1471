// `kraken pack --nodes FILE --pods FILE`: simulates placing GPU-sharing pods on a cluster
// with the FGD paper's protocol and compares placement policies (docs/packing.md).
#include <cstdio>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "app/pack_request.h"

namespace kraken::cli {
namespace {

struct PackArgs {
  std::string nodes;
  std::string pods;
  PackSettings settings;
  bool json = false;
  std::string output = "-";
};

// Reads both lists; rows the loader skipped or repaired are reported on stderr.
Result<PackCluster> LoadCluster(const PackArgs& args) {
  KRAKEN_ASSIGN_OR_RETURN(LoadedPackCluster loaded, LoadPackCluster(args.nodes, args.pods));
  for (const auto& [name, count] : loaded.node_counters)
    std::fprintf(stderr, "kraken: %s: %s = %lld\n", args.nodes.c_str(), name.c_str(), static_cast<long long>(count));
  for (const auto& [name, count] : loaded.pod_counters)
    std::fprintf(stderr, "kraken: %s: %s = %lld\n", args.pods.c_str(), name.c_str(), static_cast<long long>(count));
  return std::move(loaded.cluster);
}

int RunPack(const PackArgs& args) {
  auto plan = MakePackPlan(args.settings);
  if (!plan.ok()) return ReportError(plan.status());
  auto cluster = LoadCluster(args);
  if (!cluster.ok()) return ReportError(cluster.status());
  auto text = RenderPack(std::move(cluster).value(), args.settings, *plan, args.json);
  if (!text.ok()) return ReportError(text.status());
  Status status = WriteOutput(args.output, *text);
  if (!status.ok()) return ReportError(status);
  const bool sweep = !args.settings.explain && args.settings.explain_pods.empty();
  if (sweep && args.output != "-" && !args.output.empty())
    std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
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
  cmd->add_option("--policy", args->settings.policy,
                  "Policy name, comma list or 'all': Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD, Kraken")
      ->capture_default_str();
  cmd->add_option("--seeds", args->settings.seeds, "Seeds: a range FIRST-LAST or a comma list (one experiment each)")
      ->capture_default_str();
  cmd->add_option("--tune", args->settings.tune, "Submit pods until their GPU request is this multiple of GPU capacity")
      ->capture_default_str();
  cmd->add_option("--threshold", args->settings.threshold, "Typical pods cover this % of the pod list (FGD: 95)")
      ->capture_default_str();
  cmd->add_option("--threads", args->settings.threads, "Experiments run in parallel")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/packing.md)");
  cmd->add_flag("--explain", args->settings.explain,
                "Explain the first placements of the first seed instead of the sweep: candidate nodes, score parts, "
                "assumptions");
  cmd->add_option("--explain-pod", args->settings.explain_pods,
                  "Explain the pod at this 0-based position of the arrival order (repeatable; implies --explain)");
  cmd->add_option("--explain-top", args->settings.explain_top, "Candidate nodes listed per explained pod")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunPack(*args); }});
}

}  // namespace kraken::cli
