// `kraken mig-plan --emit mig-parted|node-labels` on the real nvidia-smi captures of an
// H100 and an H200 with MIG instances and of a whole H100 (../shared/data/nvidia-smi).
#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string MigPartedCaptures() {
  return testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt") + " " +
         testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt") + " " +
         testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt");
}

TEST(MigPartedCli, ConfigAndNodeLabelOfARealPlan) {
  // The plan: the captures' five small instances (two loaded at 11.9 and 18.2 GiB with
  // headroom, three idle) share one H100; the loaded whole H100 keeps its GPU.
  RunResult r = RunKraken("mig-plan " + MigPartedCaptures() +
                          " --gpu h100-sxm --emit mig-parted --gpus-per-node 2 --nodes h100-a,h100-b");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "# nvidia-mig-parted configuration written by `kraken mig-plan --emit mig-parted` for NVIDIA H100 SXM5 "
            "80GB.\n# Select one per node with the label nvidia.com/mig.config=<name>.\n"
            "version: v1\nmig-configs:\n  1g.20gb-x2.1g.10gb-x3:\n"
            "    - devices: [0]\n      mig-enabled: true\n      mig-devices:\n        \"1g.10gb\": 3\n"
            "        \"1g.20gb\": 2\n"
            "    - devices: [1]\n      mig-enabled: false\n");
  RunResult labels = RunKraken("mig-plan " + MigPartedCaptures() +
                               " --gpu h100-sxm --emit node-labels --gpus-per-node 2 --nodes h100-a,h100-b");
  ASSERT_EQ(labels.exit_code, 0) << labels.err;
  EXPECT_EQ(labels.out, "kubectl label node h100-a nvidia.com/mig.config=1g.20gb-x2.1g.10gb-x3 --overwrite\n");
}

TEST(MigPartedCli, NodesWithTheSameLayoutShareAConfig) {
  std::string flags;
  for (int i = 0; i < 14; ++i) flags.append(" --workload w").append(std::to_string(i)).append(":4:0.1");
  std::string args = "mig-plan --gpu a100-40gb-sxm --emit node-labels --gpus-per-node 1";
  args.append(flags).append(" --workload big:30:0.9");
  RunResult r = RunKraken(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Fourteen 1g.5gb fill two GPUs the same way (one config); the 30 GiB workload keeps a
  // whole GPU (MIG disabled). The names are the layouts as the controller labels them.
  EXPECT_EQ(r.out,
            "kubectl label node node-0 nvidia.com/mig.config=1g.5gb-x7 --overwrite\n"
            "kubectl label node node-1 nvidia.com/mig.config=1g.5gb-x7 --overwrite\n"
            "kubectl label node node-2 nvidia.com/mig.config=none --overwrite\n");
}

TEST(MigPartedCli, BadEmitFlagsAreOneLineErrors) {
  ExpectOneLineError(RunKraken("mig-plan --workload a:4:0.1 --emit yaml"), "--emit expects plan, mig-parted");
  ExpectOneLineError(RunKraken("mig-plan --workload a:4:0.1 --emit mig-parted --gpus-per-node 0"),
                     "--gpus-per-node must be in [1, 64]");
  ExpectOneLineError(RunKraken("mig-plan " + MigPartedCaptures() + " --emit mig-parted --gpus-per-node 1 --nodes x"),
                     "the plan needs 2 node(s) of 1 GPUs; --nodes names 1");
}

}  // namespace
}  // namespace kraken
