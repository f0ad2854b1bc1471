// `kraken dashboard --port 8080 --profile profile_data.json` (the KRAKEN spelling): imports
// the file into a store (--db, or a temporary one removed when the dashboard stops), serves
// the dashboard and the API on it like `kraken serve`, and prints the address of the
// profile's own page (#/workload/ID).
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/store_requests.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/serve_runner.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct DashboardArgs {
  ServeArgs serve;
  std::vector<std::string> profiles;
  std::string import_format;
};

// A folder under the system's temp folder, removed with everything in it at scope exit.
class TemporaryStoreFolder {
 public:
  static Result<std::unique_ptr<TemporaryStoreFolder>> Create() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kraken-dashboard-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return IoError(pattern + ": cannot create a temporary store folder");
    return std::unique_ptr<TemporaryStoreFolder>(new TemporaryStoreFolder(pattern));
  }
  ~TemporaryStoreFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit TemporaryStoreFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

int RunDashboard(DashboardArgs args) {
  if (args.profiles.empty()) return ReportError(InvalidInput("--profile: give the file to show"));
  // A local viewer: loopback unless told otherwise.
  const char* env_host = std::getenv("KRAKEN_HOST");
  if (args.serve.host.empty() && (env_host == nullptr || *env_host == '\0')) args.serve.host = "127.0.0.1";
  std::unique_ptr<TemporaryStoreFolder> temporary;
  if (args.serve.db.empty()) {
    auto created = TemporaryStoreFolder::Create();
    if (!created.ok()) return ReportError(created.status());
    temporary = std::move(created).value();
    args.serve.db = temporary->path() + "/kraken.db";
  }
  // Flags first, then the import: a typo fails before the (slow) import.
  auto options = MakeServeOptions(args.serve);
  if (!options.ok()) return ReportError(options.status());
  auto profiles = ImportFiles(args.profiles, CliInputOptions(args.import_format, ""));
  if (!profiles.ok()) return ReportError(profiles.status());
  auto ids = SaveProfiles(args.serve.db, *profiles);
  if (!ids.ok()) return ReportError(ids.status());
  std::string page = ids->size() == 1 ? "/#/workload/" + std::to_string(ids->front()) : "/#/";
  std::string db = options->db_path;
  return RunServer(*options, [&](const std::string& url) {
    std::fprintf(stderr, "kraken dashboard: %zu profile(s) in %s%s\n", ids->size(), db.c_str(),
                 temporary ? " (temporary, removed on exit)" : "");
    std::fprintf(stderr, "kraken dashboard: open %s%s\n", url.c_str(), page.c_str());
  });
}

}  // namespace

void AddDashboardCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<DashboardArgs>();
  CLI::App* cmd = app.add_subcommand(
      "dashboard", "Import a profile and serve the dashboard on it (`kraken serve` with the profile loaded)");
  cmd->add_option("-p,--profile", args->profiles,
                  "File to show (anything `kraken analyze` reads; may be repeated)")
      ->required();
  cmd->add_option("--port", args->serve.port, "Port (default: $KRAKEN_PORT, else 7070; 0 picks a free one)");
  cmd->add_option("--host", args->serve.host, "Address to listen on (default: $KRAKEN_HOST, else 127.0.0.1)");
  cmd->add_option("--db", args->serve.db,
                  "Store to import into and serve (default: a temporary one, removed when the dashboard stops)");
  cmd->add_option("--format", args->import_format, "Force an importer (see `kraken formats`)");
  commands.push_back({cmd, [args] { return RunDashboard(*args); }});
}

}  // namespace kraken::cli
