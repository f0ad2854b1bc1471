// `kraken cost recommend PROFILE...`: the cloud instances that fit the measured demand,
// ranked by the cost of its work; `kraken cost chargeback --prometheus URL`: GPU-hours
// and cost per team, idle cost, budgets (docs/cost.md).
#include <cstdio>

#include "app/cost_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct CostArgs {
  CLI::App* recommend = nullptr;
  CLI::App* chargeback = nullptr;
  std::vector<std::string> files;
  CostRecommendSettings recommend_settings;
  ChargebackSettings chargeback_settings;
  std::string output_format = "text";
  bool json = false;
  std::string format;
  std::string db;
  std::string output = "-";
};

Result<ChargebackFormat> ParseChargebackFormat(const std::string& text, bool json) {
  if (json || text == "json") return ChargebackFormat::kJson;
  if (text == "text") return ChargebackFormat::kText;
  if (text == "csv") return ChargebackFormat::kCsv;
  if (text == "prometheus") return ChargebackFormat::kPrometheus;
  if (text == "html") return ChargebackFormat::kHtml;
  return InvalidInput("--output-format expects text, json, csv, prometheus or html, got '" + text + "'");
}

int RunCost(const CostArgs& args) {
  Result<std::string> text = InvalidInput("cost needs a subcommand: recommend or chargeback");
  if (args.recommend->parsed()) {
    text = RenderCostRecommendation(args.files, CliInputOptions(args.format, args.db), args.recommend_settings,
                                    args.json);
  } else if (args.chargeback->parsed()) {
    auto format = ParseChargebackFormat(args.output_format, args.json);
    if (!format.ok()) return ReportError(format.status());
    text = RenderChargeback(args.chargeback_settings, *format);
  }
  return WriteCommandOutput(args.output, text);
}

void AddRecommendFlags(CLI::App* cmd, CostArgs& args) {
  CostRecommendSettings& s = args.recommend_settings;
  cmd->add_option("files", args.files, "Traces, captures or ids of stored profiles (12 or db:12)")->required();
  AddDbOption(cmd, &args.db);
  cmd->add_option("--cloud", s.cloud, "aws, gcp, azure, any, or another provider of the catalog")
      ->capture_default_str();
  cmd->add_option("--budget", s.budget_usd_per_month, "Most $ per month an instance may cost (0 = no limit)");
  cmd->add_flag("--spot", s.spot, "Price with the spot rate where the catalog has one");
  cmd->add_option("--prices", s.prices, "A price catalog CSV of your own (format: docs/cost.md)");
  cmd->add_option("--current", s.current, "The instance the workload runs on now (default: the cheapest with its GPU)");
  cmd->add_option("--headroom", s.headroom, "GPU memory headroom over the measured peak")->capture_default_str();
  cmd->add_option("--top", s.top, "Rows shown per workload in text")->capture_default_str();
  cmd->add_flag("--json", args.json, "Print one JSON document (keys: docs/cost.md)");
  cmd->add_option("--format", args.format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args.output, "Write to FILE instead of standard output");
}

void AddChargebackFlags(CLI::App* cmd, CostArgs& args) {
  ChargebackSettings& s = args.chargeback_settings;
  cmd->add_option("--prometheus", s.prometheus, "Prometheus base URL holding the DCGM history")->required();
  cmd->add_option("--range", s.range, "How far back (Prometheus duration: 30d, 12h)")->capture_default_str();
  cmd->add_option("--step", s.step, "Query resolution (auto or a duration)")->capture_default_str();
  cmd->add_option("--end", s.end_s, "Unix seconds the range ends at (default: now)");
  cmd->add_option("--by", s.by, "Charge to: namespace, or label=NAME (the pod's label from kube_pod_labels, else the DCGM series')")
      ->capture_default_str();
  cmd->add_option("--prices", s.prices, "A price catalog CSV of your own (format: docs/cost.md)");
  cmd->add_option("--cloud", s.cloud, "Whose prices: aws, gcp, azure, any, ...")->capture_default_str();
  cmd->add_option("--usd-per-gpu-hour", s.usd_per_gpu_hour, "One price for every GPU-hour (overrides the catalog)");
  cmd->add_option("--gpu-model", s.gpu_model, "Catalog id for GPUs whose series carry no modelName");
  cmd->add_option("--budgets", s.budgets, "CSV team,monthly_usd: budget per team");
  cmd->add_option("--forecast", s.forecast,
                  "Also project the month through the forecaster over this horizon (24h), with its 95% interval");
  cmd->add_option("--timeout", s.timeout_s, "Seconds per Prometheus request")->capture_default_str();
  cmd->add_option("--output-format", args.output_format, "text, json, csv, prometheus (kraken_budget_*) or html")
      ->capture_default_str();
  cmd->add_flag("--json", args.json, "Same as --output-format json");
  cmd->add_option("-o,--output", args.output, "Write to FILE instead of standard output");
}

}  // namespace

void AddCostCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<CostArgs>();
  CLI::App* cmd = app.add_subcommand("cost", "What GPU work costs: instances to run it on, and chargeback per team");
  cmd->require_subcommand(1);
  args->recommend = cmd->add_subcommand(
      "recommend", "Rank the cloud instances that fit the measured demand by the cost of its work");
  AddRecommendFlags(args->recommend, *args);
  args->chargeback = cmd->add_subcommand(
      "chargeback", "GPU-hours allocated vs used (DCGM) per namespace or label, cost, idle cost, budgets");
  AddChargebackFlags(args->chargeback, *args);
  commands.push_back({cmd, [args] { return RunCost(*args); }});
}

}  // namespace kraken::cli
