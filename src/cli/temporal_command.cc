// `kraken temporal FILE...`: periodicity and forecastability of utilization or
// allocation series (docs/temporal.md).
#include <unistd.h>

#include <cstdio>

#include "analysis/temporal/series_selection.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/registry.h"
#include "report/temporal_output.h"

namespace kraken::cli {
namespace {

struct TemporalArgs {
  std::vector<std::string> files;
  std::vector<std::string> series;
  std::string horizons = "1h,24h";
  bool json = false;
  bool explain = false;
  std::string format;
  std::string output = "-";
};

int RunTemporal(const TemporalArgs& args) {
  temporal::TemporalOptions options;
  auto horizons = temporal::ParseHorizons(args.horizons);
  if (!horizons.ok()) return ReportError(horizons.status());
  options.horizons = *horizons;

  std::vector<TemporalFile> files;
  std::vector<bool> matched(args.series.size(), false);
  for (const std::string& path : args.files) {
    ImportOptions import_options;
    import_options.forced_format = args.format;
    import_options.progress = MakeProgress(path);
    auto profiles = ImportFile(BuiltinImporters(), path, import_options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!profiles.ok()) return ReportError(profiles.status());
    for (const Profile& p : *profiles) {
      TemporalFile file;
      file.source = p.metadata.source;
      file.format = p.metadata.format;
      auto clock = p.metadata.attributes.find("clock");
      if (clock != p.metadata.attributes.end()) file.clock = clock->second;
      for (size_t i : temporal::SelectSeries(p, args.series, &matched)) {
        file.indices.push_back(i);
        file.reports.push_back(temporal::AnalyzeTemporal(p.series[i], options));
      }
      if (p.series.empty())
        return ReportError(InvalidInput(p.metadata.source + ": holds no sampled series (format " + p.metadata.format +
                                        ")"));
      files.push_back(std::move(file));
    }
  }
  for (size_t k = 0; k < matched.size(); ++k)
    if (!matched[k])
      return ReportError(InvalidInput("--series '" + args.series[k] +
                                      "' matches no series (names and indices: run without --series)"));

  std::string text = args.json      ? RenderTemporalJson(files, options)
                     : args.explain ? RenderTemporalExplain(files, options)
                                    : RenderTemporalText(files, options);
  Status status = WriteOutput(args.output, text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace

void AddTemporalCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<TemporalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "temporal",
      "Periodicity (period, strength, peak and idle phases) and forecast accuracy (MASE) of utilization or "
      "allocation series");
  cmd->add_option("files", args->files, "Series files (Helios sequences, GenAI per-pod CSVs, nvidia-smi, DCGM, ...)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--series", args->series,
                  "Only these series: an index (the table's # column), an exact name, or a part of names; repeatable");
  cmd->add_option("--horizon", args->horizons,
                  "Forecast horizons, comma-separated: s, m, h, d, w, or it (iterations)")
      ->capture_default_str();
  auto* json = cmd->add_flag("--json", args->json, "Print one JSON document with every number (docs/temporal.md)");
  cmd->add_flag("--explain", args->explain,
                "Show the inputs, each part of the periodicity test and forecast evaluation, and the assumptions")
      ->excludes(json);
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunTemporal(*args); }});
}

}  // namespace kraken::cli
