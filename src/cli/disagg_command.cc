// `kraken disagg FILE|ID...`: how well each workload suits disaggregated, pooled or shared
// GPUs: score with its parts, recommended strategy, impact range and savings.
#include <cstdio>

#include "app/disagg_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct DisaggArgs {
  std::vector<std::string> files;
  DisaggSettings settings;
  bool json = false;
  std::string format;
  std::string db;
  std::string output = "-";
};

int RunDisagg(const DisaggArgs& args) {
  auto setup = MakeDisaggSetup(args.settings);
  if (!setup.ok()) return ReportError(setup.status());
  std::vector<Profile> profiles;
  if (Status loaded = LoadProfileInputs(args.files, CliInputOptions(args.format, args.db), &profiles); !loaded.ok())
    return ReportError(loaded);
  auto text = RenderDisagg(profiles, *setup, args.json);
  return WriteCommandOutput(args.output, text);
}

}  // namespace

void AddDisaggCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<DisaggArgs>();
  CLI::App* cmd = app.add_subcommand(
      "disagg", "Score how well workloads suit disaggregated, pooled or shared GPUs; recommend a strategy");
  cmd->add_option("files", args->files,
                  "Traces, nvidia-smi/DCGM captures or Prometheus series, or ids of stored profiles (12 or db:12, "
                  "see `kraken list`)")
      ->required();
  AddDbOption(cmd, &args->db);
  cmd->add_option("--link", args->settings.links,
                  "Remote link BANDWIDTH,LATENCY to model (repeatable; the first is scored), e.g. 100Gbps,5us; "
                  "default: 100Gbps,5us 25Gbps,10us 400Gbps,2us");
  cmd->add_option("--price", args->settings.price, "Price of a GPU-hour in $ for the savings")->capture_default_str();
  cmd->add_option("--max-slowdown", args->settings.max_slowdown_pct,
                  "Expected slowdown in % a recommended MIG slice may cost (0-1000); a slice that costs more is "
                  "not recommended")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/disaggregation.md)");
  cmd->add_flag("--explain", args->settings.explain,
                "Print every input, formula part and assumption behind each figure");
  cmd->add_option("--reference", args->settings.reference,
                  "Alibaba GPU-disaggregated DLRM trace (disaggregated_DLRM_trace.csv[.gz]) to print the resource "
                  "ratios real disaggregated deployments use")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunDisagg(*args); }});
}

}  // namespace kraken::cli
