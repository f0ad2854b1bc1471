// `kraken list`: the profiles in the store, oldest first.
#include "app/store_requests.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct ListArgs {
  std::string db;
  bool json = false;
};

int RunList(const ListArgs& args) {
  auto out = RenderProfileList(args.db, args.json);
  if (!out.ok()) return ReportError(out.status());
  Status status = WriteOutput("-", *out);
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace

void AddListCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* cmd = app.add_subcommand("list", "List the profiles in the profile database");
  AddDbOption(cmd, &args->db);
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/store.md)");
  commands.push_back({cmd, [args] { return RunList(*args); }});
}

}  // namespace kraken::cli
