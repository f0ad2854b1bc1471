// `kraken mig apply --plan FILE [--config NAME] [--dry-run]`: make this node's MIG layout
// the plan's through NVML (docs/mig-planning.md).
#include <cstdio>

#include "app/mig_apply_request.h"
#include "cli/cli_common.h"
#include "cli/commands.h"

namespace kraken::cli {

void AddMigCommand(CLI::App& app, CommandList& commands) {
  auto settings = std::make_shared<MigApplySettings>();
  CLI::App* cmd = app.add_subcommand("mig", "Act on this node's MIG layout");
  cmd->require_subcommand(1);
  CLI::App* apply = cmd->add_subcommand(
      "apply", "Create and destroy GPU and compute instances through NVML to match a mig-parted plan");
  apply->add_option("--plan", settings->plan, "The nvidia-mig-parted file of `kraken mig-plan --emit mig-parted`")
      ->required();
  apply->add_option("--config", settings->config, "Which configuration of the file (this node's nvidia.com/mig.config)");
  apply->add_flag("--dry-run", settings->dry_run, "Read the GPUs and say what would change; change nothing");
  apply->add_option("--nvml-library", settings->nvml_library, "NVML library to load (default: the driver's)");
  commands.push_back({cmd, [settings] {
                        auto text = ApplyMigPlan(*settings);
                        if (!text.ok()) return ReportError(text.status());
                        std::fputs(text->c_str(), stdout);
                        return kExitOk;
                      }});
}

}  // namespace kraken::cli
