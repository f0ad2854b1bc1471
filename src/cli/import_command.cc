// `kraken import FILE... [--db [PATH]]`: reads inputs and reports what they hold, without
// analysing; with --db also stores them (one profile each) and prints their ids.
#include "app/store_requests.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"
#include "store/store_path.h"

namespace kraken::cli {
namespace {

struct ImportArgs {
  std::vector<std::string> files;
  std::string format;  // forced importer; empty = sniff
  bool json = false;
  std::string db;
  CLI::Option* db_option = nullptr;  // given with or without a path
};

int RunImport(const ImportArgs& args) {
  auto profiles = ImportFiles(args.files, CliInputOptions(args.format, ""));
  if (!profiles.ok()) return ReportError(profiles.status());
  std::vector<int64_t> ids;
  bool store = args.db_option != nullptr && args.db_option->count() > 0;
  if (store) {
    auto stored = SaveProfiles(args.db, *profiles);
    if (!stored.ok()) return ReportError(stored.status());
    ids = std::move(stored).value();
  }
  std::string db_path = store ? StoreLocationForDisplay(ResolveDbPath(args.db)) : "";
  std::string out = args.json ? RenderImportJson(*profiles, db_path, ids) : RenderImportText(*profiles, db_path, ids);
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
  // An optional value: `--db` alone stores into the default database. Put it after the
  // files or write --db=PATH, or it takes the first file for the database.
  args->db_option = cmd->add_option("--db", args->db,
                                    "Also store the profiles in the profile database and print their ids (default "
                                    "database: $KRAKEN_STORAGE_PATH, else $XDG_DATA_HOME/kraken/kraken.db, else "
                                    "~/.local/share/kraken/kraken.db)")
                        ->expected(0, 1);
  commands.push_back({cmd, [args] { return RunImport(*args); }});
}

}  // namespace kraken::cli
