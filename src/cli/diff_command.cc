// `kraken diff A B`: what changed between two traces (A = before, B = after): step time,
// GPU timeline categories, kernel and operator time by name and by class, added and
// removed kernels, the changes ranked by impact.
#include <cstdio>

#include "app/diff_request.h"
#include "app/parallel_inputs.h"
#include "app/parallel_work.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct DiffArgs {
  std::string a;
  std::string b;
  DiffSettings settings;
  bool json = false;
  std::string format;
  std::string db;
  std::string output = "-";
};

int RunDiff(DiffArgs& args) {
  const InputOptions inputs = CliInputOptions(args.format, args.db);
  LoadedProfiles a, b;
  if (Status s = LoadProfileInputsParallel({args.a}, inputs, AnalysisThreads(), &a); !s.ok()) return ReportError(s);
  if (Status s = LoadProfileInputsParallel({args.b}, inputs, AnalysisThreads(), &b); !s.ok()) return ReportError(s);
  args.settings.a_name = args.a;
  args.settings.b_name = args.b;
  auto text = RenderDiff(a.profiles, b.profiles, args.settings, args.json);
  if (!text.ok()) return ReportError(text.status());
  Status status = WriteOutput(args.output, *text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace

void AddDiffCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two traces (A = before, B = after): step time, timeline, kernels and operators, ranked by impact");
  cmd->add_option("a", args->a, "Trace, archive or directory of ranks before the change (or a stored profile id)")
      ->required();
  cmd->add_option("b", args->b, "Trace, archive or directory of ranks after the change (or a stored profile id)")
      ->required();
  AddDbOption(cmd, &args->db);
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/json-output.md)");
  cmd->add_option("--top", args->settings.top, "Entries per list")->capture_default_str();
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunDiff(*args); }});
}

}  // namespace kraken::cli
