// `kraken analyze FILE|ID...`: imports the inputs (or loads stored profiles by id) and
// prints the characterization.
#include <cstdio>

#include "app/analyze_request.h"
#include "app/cluster_request.h"
#include "app/parallel_inputs.h"
#include "app/parallel_work.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> files;
  std::string format;
  bool json = false;
  AnalyzeSettings settings;  // --device, --window, --thresholds, --top, --linked-only
  std::string output = "-";
  std::string db;
  ClusterAnalyzeSettings cluster;  // --prometheus: the cluster path (app/cluster_request.h)
};

int WriteAnalysis(const std::string& output, const std::string& text) {
  Status status = WriteOutput(output, text);
  if (!status.ok()) return ReportError(status);
  if (output != "-" && !output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", output.c_str());
  return kExitOk;
}

int RunAnalyze(const AnalyzeArgs& args) {
  if (!args.cluster.prometheus.empty()) {
    if (!args.files.empty()) return ReportError(InvalidInput("give either files or --prometheus, not both"));
    auto text = RenderClusterAnalysis(args.cluster, args.json);
    if (!text.ok()) return ReportError(text.status());
    return WriteAnalysis(args.output, *text);
  }
  if (args.files.empty()) return ReportError(InvalidInput("analyze needs files, profile ids or --prometheus URL"));
  auto options = MakeCharacterizeOptions(args.settings);
  if (!options.ok()) return ReportError(options.status());

  // Files, directory entries and archive members are imported on every core.
  LoadedProfiles loaded;
  if (Status s = LoadProfileInputsParallel(args.files, CliInputOptions(args.format, args.db), AnalysisThreads(), &loaded);
      !s.ok())
    return ReportError(s);

  return WriteAnalysis(args.output, RenderAnalysis(loaded.profiles, args.settings, *options, args.json));
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "analyze", "Characterize workloads: GPU timeline, kernel bounds, training vs inference, diagnoses");
  cmd->add_option("files", args->files,
                  "Traces, exports or logs (one profile per rank or node), or ids of stored profiles (12 or db:12, "
                  "see `kraken list`)");
  AddDbOption(cmd, &args->db);
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/json-output.md)");
  cmd->add_option("--device", args->settings.device,
                  "Device whose peaks the roofline uses (id or name, see `kraken devices`); default: recognised "
                  "from the input");
  cmd->add_option("--window", args->settings.window, "Headline timeline window: trace or steps")->capture_default_str();
  cmd->add_option("--thresholds", args->settings.thresholds,
                  "Fixed arithmetic-intensity classes LOW,HIGH (e.g. 10,50): AI<LOW memory, >HIGH compute, else "
                  "mixed");
  cmd->add_option("--top", args->settings.top, "Kernels to list")->capture_default_str();
  cmd->add_flag("--linked-only", args->settings.linked_only,
                "Count only GPU events linked to a launch call (TraceLens' default)");
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  ClusterAnalyzeSettings& c = args->cluster;
  cmd->add_option("--prometheus", c.prometheus,
                  "Read DCGM history of a Kubernetes namespace from this Prometheus (http://HOST:PORT[/PREFIX]) "
                  "and print pooling candidates per pod instead of analyzing files");
  cmd->add_option("--namespace", c.namespace_name, "With --prometheus: the Kubernetes namespace to analyze");
  cmd->add_option("--pod", c.pod, "With --prometheus: only this pod");
  cmd->add_option("--range", c.range, "With --prometheus: how far back to read (Prometheus duration: 7d, 36h)")
      ->capture_default_str();
  cmd->add_option("--step", c.step,
                  "With --prometheus: query resolution (60s, 5m) or auto (60 s, coarser for ranges over ~41 days); "
                  "ranges over 10,000 steps are paged into several queries")
      ->capture_default_str();
  cmd->add_option("--end", c.end_s, "With --prometheus: end of the range in Unix seconds (default: now)");
  cmd->add_option("--gpu-model", c.gpu_model,
                  "With --prometheus: catalog id of GPUs whose series have no modelName label (old exporters)");
  cmd->add_option("--timeout", c.timeout_s, "With --prometheus: seconds to wait for each HTTP request")
      ->capture_default_str();
  cmd->add_option("--max-slowdown", c.max_slowdown_pct,
                  "With --prometheus: expected slowdown in % a recommended MIG slice may cost (0-1000); a pod no "
                  "slice below the whole GPU keeps within it is not sliced")
      ->capture_default_str();
  cmd->add_flag("--explain", c.explain,
                "With --prometheus: print each pod's inputs, the terms of each rule and the assumptions");
  commands.push_back({cmd, [args] { return RunAnalyze(*args); }});
}

}  // namespace kraken::cli
