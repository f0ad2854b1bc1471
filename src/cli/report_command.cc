// `kraken report INPUT... [-o report.html]` (also spelled `kraken report --input FILE
// --output report.html`): one self-contained HTML page (charts, tables and a summary a
// manager can read first) that opens without network or kraken.
#include <cstdio>

#include "app/report_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> named_inputs;  // --input, the KRAKEN spelling
  std::string output = "report.html";
  std::string device;
  double gpu_hour_cost = kDefaultGpuHourCostUsd;
  double max_slowdown_pct = kDefaultMaxSlowdownPct;
  std::string title;
  std::string format;
  std::string db;
  bool data_only = false;
  ChargebackSettings chargeback;  // the --chargeback-* flags
};

int RunReport(ReportArgs args) {
  args.inputs.insert(args.inputs.end(), args.named_inputs.begin(), args.named_inputs.end());
  if (args.inputs.empty())
    return ReportError(InvalidInput("nothing to report: give input files or ids, or --input FILE"));
  ReportSettings settings;
  settings.analyze.device = args.device;
  settings.gpu_hour_cost_usd = args.gpu_hour_cost;
  settings.max_slowdown_pct = args.max_slowdown_pct;
  settings.inputs = args.inputs;
  settings.chargeback = args.chargeback;
  settings.title = args.title.empty() ? DefaultReportTitle(args.inputs) : args.title;
  // Flags are checked before the (slow) import so a typo fails at once.
  if (Status checked = CheckReportSettings(settings); !checked.ok()) return ReportError(checked);

  std::vector<Profile> profiles;
  if (Status loaded = LoadProfileInputs(args.inputs, CliInputOptions(args.format, args.db), &profiles); !loaded.ok())
    return ReportError(loaded);
  auto text = RenderReport(profiles, settings, args.data_only);
  return WriteCommandOutput(args.output, text);
}

// The report's chargeback section: `kraken cost chargeback`'s flags, prefixed.
void AddChargebackOptions(CLI::App* cmd, ChargebackSettings* c) {
  cmd->add_option("--chargeback-prometheus", c->prometheus,
                  "Add the chargeback section (`kraken cost chargeback`) of this Prometheus's DCGM history");
  cmd->add_option("--chargeback-range", c->range, "Chargeback period ending now (or at --chargeback-end)")
      ->capture_default_str();
  cmd->add_option("--chargeback-step", c->step, "Chargeback sample step (Prometheus duration, or auto)")
      ->capture_default_str();
  cmd->add_option("--chargeback-end", c->end_s, "Chargeback period end, unix seconds (default: now)");
  cmd->add_option("--chargeback-by", c->by, "Chargeback per namespace or label=NAME")->capture_default_str();
  cmd->add_option("--chargeback-budgets", c->budgets, "Monthly budgets per team (CSV team,monthly_usd)");
  cmd->add_option("--chargeback-gpu-model", c->gpu_model, "GPU model of series without modelName");
  cmd->add_option("--chargeback-usd-per-gpu-hour", c->usd_per_gpu_hour,
                  "Flat chargeback price instead of the catalog's");
  cmd->add_option("--chargeback-forecast", c->forecast,
                  "Also the month through the forecaster (`kraken cost chargeback --forecast`, e.g. 24h): its "
                  "95% interval, and AT RISK/OVER against --chargeback-budgets");
}

}  // namespace

void AddReportCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write one self-contained HTML report: summary, savings, GPU timeline, roofline, top kernels, steps");
  cmd->add_option("inputs", args->inputs,
                  "Traces, exports or captures (anything `kraken analyze` reads), or ids of stored profiles (12 or "
                  "db:12, see `kraken list`)");
  cmd->add_option("-i,--input", args->named_inputs, "An input as a flag (may be repeated); the same as an argument");
  cmd->add_option("-o,--output", args->output, "HTML file to write (written whole or not at all; - = standard output)")
      ->capture_default_str();
  cmd->add_option("--device", args->device,
                  "Device whose peaks the roofline uses (id or name, see `kraken devices`); default: recognised "
                  "from the input");
  cmd->add_option("--gpu-hour-cost", args->gpu_hour_cost,
                  "Price of one GPU-hour in US$ for the savings (default: on-demand H100 rental, 2026; sources in "
                  "docs/report.md)")
      ->capture_default_str();
  cmd->add_option("--max-slowdown", args->max_slowdown_pct,
                  "Disaggregation section: expected slowdown in % a recommended MIG slice may cost (0-1000), as "
                  "`kraken disagg --max-slowdown`")
      ->capture_default_str();
  cmd->add_option("--title", args->title, "Title at the top of the report; default: the first input's file name");
  cmd->add_flag("--data-only", args->data_only,
                "Write the JSON document the page renders instead of the page (keys: docs/report.md)");
  AddChargebackOptions(cmd, &args->chargeback);
  AddDbOption(cmd, &args->db);
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  commands.push_back({cmd, [args] { return RunReport(*args); }});
}

}  // namespace kraken::cli
