// `kraken plan tenants FILE --gpus ... --optimize cost|performance|balanced`: which GPU,
// slice or share each tenant's workload gets, each SLA checked with the co-location model
// (docs/tenants.md).
#include <cstdio>

#include "app/tenant_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct PlanArgs {
  CLI::App* tenants = nullptr;
  TenantPlanSettings settings;
  bool json = false;
  std::string format;
  std::string db;
  std::string output = "-";
};

int RunPlan(const PlanArgs& args) {
  auto text = RenderTenantPlan(args.settings, CliInputOptions(args.format, args.db), args.json);
  return WriteCommandOutput(args.output, text);
}

}  // namespace

void AddPlanCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Allocation plans across tenants");
  cmd->require_subcommand(1);
  CLI::App* tenants = cmd->add_subcommand(
      "tenants", "Place tenants' workloads on GPUs (whole, shared or MIG) with each SLA checked");
  args->tenants = tenants;
  tenants->add_option("file", args->settings.tenants,
                      "CSV: tenant,workload,profile,type,p99_ms,rate_per_s,min_throughput (docs/tenants.md)")
      ->required();
  tenants->add_option("--gpus", args->settings.gpus, "Available GPUs: MODEL[:mig][@USD_PER_HOUR][=NAME], comma-separated")
      ->delimiter(',')
      ->required();
  tenants->add_option("--optimize", args->settings.optimize, "cost, performance or balanced")->capture_default_str();
  tenants->add_option("--prices", args->settings.prices, "Price catalog for the GPUs' $/hour (docs/cost.md)");
  AddDbOption(tenants, &args->db);
  tenants->add_flag("--json", args->json, "Print one JSON document (keys: docs/tenants.md)");
  tenants->add_option("--format", args->format, "Force an importer for the profiles");
  tenants->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunPlan(*args); }});
}

}  // namespace kraken::cli
