// `kraken analyze FILE|ID...`: imports the inputs (or loads stored profiles by id) and
// prints the characterization.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "analysis/aggregate.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/cluster_analyze.h"
#include "cli/commands.h"
#include "cli/store_access.h"
#include "importers/registry.h"
#include "model/device_catalog.h"
#include "report/analysis_output.h"

namespace kraken::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> files;
  std::string format;
  bool json = false;
  std::string device;  // catalog id or device name; empty = from the input
  std::string window = "trace";
  std::string thresholds;  // "LOW,HIGH" fixed arithmetic-intensity scheme
  size_t top = 10;
  bool linked_only = false;
  std::string output = "-";
  std::string db;
  ClusterAnalyzeArgs cluster;  // --prometheus: the cluster path (cli/cluster_analyze.h)
};

// An argument that names no file but reads as a profile id ("12", "db:12") is loaded from
// the store; anything else is imported (a missing file is reported by the importer).
Status LoadInputs(const AnalyzeArgs& args, std::vector<Profile>* profiles) {
  std::unique_ptr<ProfileStore> store;
  for (const std::string& file : args.files) {
    std::error_code ec;
    std::optional<int64_t> id = std::filesystem::exists(file, ec) ? std::nullopt : ParseProfileRef(file);
    if (id) {
      if (store == nullptr) {
        KRAKEN_ASSIGN_OR_RETURN(store, OpenStoreForReading(args.db));
      }
      KRAKEN_ASSIGN_OR_RETURN(Profile profile, store->LoadProfile(*id));
      profiles->push_back(std::move(profile));
      continue;
    }
    ImportOptions import_options;
    import_options.forced_format = args.format;
    import_options.progress = MakeProgress(file);
    auto result = ImportFile(BuiltinImporters(), file, import_options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!result.ok()) return result.status();
    for (auto& p : *result) profiles->push_back(std::move(p));
  }
  return Status::Ok();
}

// Per-profile kernel groups are kept whole so that merging across ranks is exact.
constexpr size_t kAllKernelGroups = 1'000'000;

Status ParseThresholds(const std::string& text, ClassifyOptions* options) {
  auto parts = Split(text, ',');
  if (parts.size() != 2) return InvalidInput("--thresholds expects LOW,HIGH (e.g. 10,50), got '" + text + "'");
  auto low = ParseDouble(parts[0]);
  auto high = ParseDouble(parts[1]);
  if (!low || !high || *low < 0 || *high < *low)
    return InvalidInput("--thresholds expects two numbers LOW <= HIGH, got '" + text + "'");
  options->fixed_low_ai = *low;
  options->fixed_high_ai = *high;
  return Status::Ok();
}

int RunAnalyze(const AnalyzeArgs& args) {
  if (!args.cluster.prometheus.empty()) {
    if (!args.files.empty()) return ReportError(InvalidInput("give either files or --prometheus, not both"));
    ClusterAnalyzeArgs cluster = args.cluster;
    cluster.json = args.json;
    cluster.output = args.output;
    return RunClusterAnalyze(cluster);
  }
  if (args.files.empty()) return ReportError(InvalidInput("analyze needs files, profile ids or --prometheus URL"));
  CharacterizeOptions options;
  options.kernels.top_n = kAllKernelGroups;
  options.timeline.linked_only = args.linked_only;
  if (!args.device.empty()) {
    options.device = FindDeviceSpec(args.device);
    if (options.device == nullptr)
      return ReportError(InvalidInput("unknown device '" + args.device + "' (see `kraken devices` for the catalog)"));
  }
  if (!args.thresholds.empty()) {
    Status status = ParseThresholds(args.thresholds, &options.kernels.classify);
    if (!status.ok()) return ReportError(status);
  }
  if (args.window != "trace" && args.window != "steps")
    return ReportError(InvalidInput("--window must be 'trace' or 'steps', got '" + args.window + "'"));

  std::vector<Profile> profiles;
  if (Status loaded = LoadInputs(args, &profiles); !loaded.ok()) return ReportError(loaded);

  std::vector<AnalyzedProfile> analyzed;
  analyzed.reserve(profiles.size());
  std::vector<const WorkloadReport*> reports;
  for (const Profile& p : profiles) {
    AnalyzedProfile a;
    a.profile = &p;
    a.report = CharacterizeWorkload(p, options);
    a.series = SummarizeSeries(p);
    analyzed.push_back(std::move(a));
  }
  for (const AnalyzedProfile& a : analyzed) reports.push_back(&a.report);
  AggregateReport aggregate = Aggregate(reports, kAllKernelGroups);

  AnalysisOutputOptions output;
  output.steps_window = args.window == "steps";
  output.top_n = args.top;
  output.thresholds = args.thresholds;
  output.device_override = args.device;
  std::string text = args.json ? RenderAnalysisJson(analyzed, aggregate, output)
                               : RenderAnalysisText(analyzed, aggregate, output);
  Status status = WriteOutput(args.output, text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
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
  cmd->add_option("--device", args->device,
                  "Device whose peaks the roofline uses (id or name, see `kraken devices`); default: recognised "
                  "from the input");
  cmd->add_option("--window", args->window, "Headline timeline window: trace or steps")->capture_default_str();
  cmd->add_option("--thresholds", args->thresholds,
                  "Fixed arithmetic-intensity classes LOW,HIGH (e.g. 10,50): AI<LOW memory, >HIGH compute, else "
                  "mixed");
  cmd->add_option("--top", args->top, "Kernels to list")->capture_default_str();
  cmd->add_flag("--linked-only", args->linked_only,
                "Count only GPU events linked to a launch call (TraceLens' default)");
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  ClusterAnalyzeArgs& c = args->cluster;
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
  cmd->add_flag("--explain", c.explain,
                "With --prometheus: print each pod's inputs, the terms of each rule and the assumptions");
  commands.push_back({cmd, [args] { return RunAnalyze(*args); }});
}

}  // namespace kraken::cli
