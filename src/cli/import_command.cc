// `kraken import FILE... [--db [PATH]]`: reads inputs and reports what they hold, without
// analysing; with --db also stores them (one profile each) and prints their ids.
#include <unistd.h>

#include <cstdio>

#include "base/json_writer.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"
#include "importers/registry.h"
#include "report/profile_summary.h"

namespace kraken::cli {
namespace {

struct ImportArgs {
  std::vector<std::string> files;
  std::string format;  // forced importer; empty = sniff
  bool json = false;
  std::string db;
  CLI::Option* db_option = nullptr;  // given with or without a path
};

// Saves every profile (each in its own transaction) and returns their ids.
Result<std::vector<int64_t>> StoreProfiles(const std::string& db, const std::vector<Profile>& profiles) {
  KRAKEN_ASSIGN_OR_RETURN(auto store, OpenStoreForWriting(db));
  std::vector<int64_t> ids;
  for (const Profile& profile : profiles) {
    KRAKEN_ASSIGN_OR_RETURN(int64_t id, store->SaveProfile(profile));
    ids.push_back(id);
  }
  return ids;
}

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
  std::vector<int64_t> ids;
  bool store = args.db_option != nullptr && args.db_option->count() > 0;
  if (store) {
    auto stored = StoreProfiles(args.db, profiles);
    if (!stored.ok()) return ReportError(stored.status());
    ids = std::move(stored).value();
  }
  std::string db_path = store ? ResolveDbPath(args.db) : "";
  std::string out;
  if (args.json) {
    JsonWriter json;
    json.BeginObject().Key("profiles").BeginArray();
    for (const auto& p : profiles) WriteProfileSummaryJson(p, json);
    json.EndArray();
    if (store) {
      json.Field("db", db_path).Key("stored_ids").BeginArray();
      for (int64_t id : ids) json.Int(id);
      json.EndArray();
    }
    json.EndObject();
    out = json.Take() + "\n";
  } else {
    for (size_t i = 0; i < profiles.size(); ++i) {
      out += RenderProfileSummaryText(profiles[i]) + "\n";
      if (store) out += "stored as profile " + std::to_string(ids[i]) + " in " + db_path + "\n\n";
    }
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
