// `kraken export ID --format json|csv`: a stored profile as one JSON document (the whole
// profile) or its metric series as long-format CSV. Streams series by series, so a
// day-long capture never has to fit in memory as text.
#include "app/store_requests.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct ExportArgs {
  std::string id;
  std::string db;
  std::string format = "json";
  std::string output = "-";
};

int RunExport(const ExportArgs& args) {
  if (args.format != "json" && args.format != "csv")
    return ReportError(InvalidInput("--format must be json or csv, got '" + args.format + "'"));
  auto id = ParseProfileId(args.id);
  if (!id.ok()) return ReportError(id.status());
  auto store = OpenStoreForReading(args.db);
  if (!store.ok()) return ReportError(store.status());
  // Check the id before creating the output, so a failed export writes nothing.
  if (Status known = (*store)->GetProfileInfo(*id).status(); !known.ok()) return ReportError(known);
  auto out = OutputFile::Open(args.output);
  if (!out.ok()) return ReportError(out.status());
  OutputFile& file = **out;
  Status status =
      ExportProfile(**store, *id, args.format, [&file](std::string_view chunk) { return file.Write(chunk); });
  if (status.ok()) status = file.Finish();
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Write a stored profile as JSON (all of it) or CSV (its series)");
  cmd->add_option("id", args->id, "Profile id (see `kraken list`)")->required();
  AddDbOption(cmd, &args->db);
  cmd->add_option("--format", args->format,
                  "json: the whole profile, one document (keys: docs/store.md); csv: one row per sample, "
                  "series,metric,source_name,<entity columns>,labels,time_ns,value")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunExport(*args); }});
}

}  // namespace kraken::cli
