// `kraken import FILE...`: reads inputs and reports what they hold, without analysing.
#include <unistd.h>

#include <cstdio>

#include "base/json_writer.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/registry.h"
#include "report/profile_summary.h"

namespace kraken::cli {
namespace {

struct ImportArgs {
  std::vector<std::string> files;
  std::string format;  // forced importer; empty = sniff
  bool json = false;
};

int RunImport(const ImportArgs& args) {
  std::vector<Profile> profiles;
  for (const std::string& file : args.files) {
    ImportOptions options;
    options.forced_format = args.format;
    options.progress = MakeProgress(file);
    auto result = ImportFile(BuiltinImporters(), file, options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!result.ok()) return ReportError(result.status());
    for (auto& p : *result) profiles.push_back(std::move(p));
  }
  std::string out;
  if (args.json) {
    JsonWriter json;
    json.BeginObject().Key("profiles").BeginArray();
    for (const auto& p : profiles) WriteProfileSummaryJson(p, json);
    json.EndArray().EndObject();
    out = json.Take() + "\n";
  } else {
    for (const auto& p : profiles) out += RenderProfileSummaryText(p) + "\n";
  }
  Status status = WriteOutput("-", out);
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace

void AddImportCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Read profiler output and report what it holds");
  cmd->add_option("files", args->files, "Trace, export or log files (gzip and tar are fine)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_flag("--json", args->json, "Print one JSON document");
  commands.push_back({cmd, [args] { return RunImport(*args); }});
}

}  // namespace kraken::cli
