// `kraken temporal FILE|ID...`: periodicity and forecastability of utilization or
// allocation series (docs/temporal.md).
#include <cstdio>

#include "app/temporal_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct TemporalArgs {
  std::vector<std::string> files;
  TemporalSettings settings;
  bool json = false;
  bool explain = false;
  std::string format;
  std::string db;
  std::string output = "-";
};

int RunTemporal(const TemporalArgs& args) {
  auto options = MakeTemporalOptions(args.settings);
  if (!options.ok()) return ReportError(options.status());
  std::vector<Profile> profiles;
  if (Status loaded = LoadProfileInputs(args.files, CliInputOptions(args.format, args.db), &profiles); !loaded.ok())
    return ReportError(loaded);
  const TemporalView view = args.json      ? TemporalView::kJson
                            : args.explain ? TemporalView::kExplain
                                           : TemporalView::kText;
  auto text = RenderTemporal(profiles, args.settings, *options, view);
  return WriteCommandOutput(args.output, text);
}

}  // namespace

void AddTemporalCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<TemporalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "temporal",
      "Periodicity (period, strength, peak and idle phases) and forecast accuracy (MASE) of utilization or "
      "allocation series");
  cmd->add_option("files", args->files,
                  "Series files (Helios sequences, GenAI per-pod CSVs, nvidia-smi, DCGM, ...) or ids of stored "
                  "profiles (12 or db:12)")
      ->required();
  AddDbOption(cmd, &args->db);
  cmd->add_option("--series", args->settings.series,
                  "Only these series: an index (the table's # column), an exact name, or a part of names; repeatable");
  cmd->add_option("--horizon", args->settings.horizons,
                  "Forecast horizons, comma-separated: s, m, h, d, w, or it (iterations)")
      ->capture_default_str();
  cmd->add_option("--forecast", args->settings.forecast,
                  "Print the forecast values up to this horizon (24h, 90m, 500it) with 80% and 95% prediction "
                  "intervals");
  auto* json = cmd->add_flag("--json", args->json, "Print one JSON document with every number (docs/temporal.md)");
  cmd->add_flag("--explain", args->explain,
                "Show the inputs, each part of the periodicity test and forecast evaluation, and the assumptions")
      ->excludes(json);
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunTemporal(*args); }});
}

}  // namespace kraken::cli
