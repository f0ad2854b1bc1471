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
#include "report/insights_output.h"

namespace kraken::cli {
namespace {

struct DiffArgs {
  std::string a;
  std::string b;
  DiffSettings settings;
  bool json = false;
  std::string html;  // also write the HTML page here
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
  auto diff = DiffProfiles(a.profiles, b.profiles, args.settings);
  if (!diff.ok()) return ReportError(diff.status());
  if (!args.html.empty()) {
    auto page = RenderDiffReport(*diff, args.settings);
    if (!page.ok()) return ReportError(page.status());
    if (Status s = WriteOutput(args.html, *page); !s.ok()) return ReportError(s);
    std::fprintf(stderr, "kraken: wrote %s\n", args.html.c_str());
  }
  const std::string text = args.json ? RenderDiffJson(*diff, args.settings)
                                     : RenderTraceDiffText(*diff, args.settings.a_name, args.settings.b_name);
  Status status = WriteOutput(args.output, text);
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
  cmd->add_option("--html", args->html, "Also write the comparison as a self-contained HTML page to FILE");
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunDiff(*args); }});
}

}  // namespace kraken::cli
