// `kraken mig-plan FILE|ID... --gpu h100-sxm`: choose a MIG profile per workload and pack
// the slices onto the fewest GPUs; say which workloads should not be sliced and why.
#include <cstdio>

#include "app/mig_plan_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct MigPlanArgs {
  std::vector<std::string> files;
  MigPlanSettings settings;
  bool json = false;
  std::string format;
  std::string db;
  std::string output = "-";
};

int RunMigPlan(const MigPlanArgs& args) {
  auto setup = MakeMigPlanSetup(args.settings);
  if (!setup.ok()) return ReportError(setup.status());
  auto workloads = LoadMigWorkloads(args.files, CliInputOptions(args.format, args.db));
  if (!workloads.ok()) return ReportError(workloads.status());
  auto text = RenderMigPlan(std::move(workloads).value(), args.settings, *setup, args.json);
  return WriteCommandOutput(args.output, text);
}

}  // namespace

void AddMigPlanCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<MigPlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "mig-plan", "Choose MIG profiles for workloads and pack them onto the fewest GPUs; say what not to slice");
  cmd->add_option("files", args->files,
                  "Traces, captures, ids of stored profiles (12 or db:12) or a plan CSV (header name,memory_gib,"
                  "sm_fraction[,type,sm_peak,comm_share,nvlink_gbps,burst_ratio])");
  AddDbOption(cmd, &args->db);
  cmd->add_option("--gpu", args->settings.gpu,
                  "GPU model to plan for: a100-40gb-sxm, a100-80gb-sxm, h100-sxm, h200-sxm")
      ->capture_default_str();
  cmd->add_option("--headroom", args->settings.headroom, "Memory headroom over the measured peak a slice must leave")
      ->capture_default_str();
  cmd->add_option("--max-slowdown", args->settings.max_slowdown_pct,
                  "Expected slowdown in % a slice may cost (0-1000); a workload no slice below the whole GPU "
                  "keeps within it is not sliced")
      ->capture_default_str();
  cmd->add_flag("--slice-alone", args->settings.slice_alone,
                "Slice a workload even when no other workload's slice fits on its GPU (it frees no GPU; keeps room "
                "for work not in the plan). Default: such a workload keeps its whole GPU");
  cmd->add_option("--workload", args->settings.workloads,
                  "A workload without a profile, NAME:MEMORY_GIB:SM_FRACTION (repeatable), e.g. bert:12:0.25");
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/mig-planning.md)");
  cmd->add_flag("--explain", args->settings.explain,
                "Print the inputs, sizing terms and assumptions for each workload");
  cmd->add_option("--emit", args->settings.emit,
                  "plan, mig-parted (the nvidia-mig-parted config per node) or node-labels (nvidia.com/mig.config)")
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", args->settings.gpus_per_node, "GPUs per node when emitting node layouts")
      ->capture_default_str();
  cmd->add_option("--nodes", args->settings.nodes, "Node names, in the order the plan fills them")->delimiter(',');
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunMigPlan(*args); }});
}

}  // namespace kraken::cli
