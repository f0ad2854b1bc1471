// `kraken mig apply` through the NVML replay library on the H100 MIG fixture (derived from
// the real capture in ../shared/data/nvidia-smi): the exact NVML MIG calls, in order, for a
// plan `kraken mig-plan --emit mig-parted` wrote; the refusals (processes, MIG off, bad plan).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string MigApplyFixture(const std::string& name) { return testing::SourceDir() + "/tests/fixtures/nvml/" + name; }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct MigApplyRun {
  RunResult result;
  std::string calls;
};

MigApplyRun RunMigApply(const std::string& fixture, const std::string& args) {
  std::string dir = testing::MakeTempDir("mig_apply");
  std::string log = dir + "/calls.log";
  std::string env = "KRAKEN_NVML_REPLAY=" + fixture + " KRAKEN_NVML_REPLAY_CALLS=" + log + " ";
  MigApplyRun run{RunKraken("mig apply " + args + " --nvml-library " + KRAKEN_NVML_REPLAY_LIBRARY, env), ""};
  run.calls = ReadAll(log);
  return run;
}

std::string PlanFile(const std::string& text) {
  std::string path = testing::MakeTempDir("mig_apply_plan") + "/plan.yaml";
  std::ofstream(path) << text;
  return path;
}

// The plan of the real H100 MIG capture plus a 30 GiB workload, as mig-plan writes it.
std::string RealPlan() {
  RunResult plan = RunKraken(
      "mig-plan " + testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt") +
      " --gpu h100-sxm --workload big:30:0.4 --emit mig-parted --gpus-per-node 1");
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  return PlanFile(plan.out);
}

TEST(MigApplyCli, DestroysThenCreatesWithTheExactNvmlCalls) {
  MigApplyRun run = RunMigApply(MigApplyFixture("h100-mig.nvml"), "--plan " + RealPlan());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_NE(run.result.out.find("GPU 0: create 3g.40gb (GPU instance profile id 9, one compute instance)"),
            std::string::npos)
      << run.result.out;
  // The fixture's layout (3g.40gb GI 2, 2g.20gb GI 3, 1g.10gb GIs 9 and 10) goes, compute
  // instances before their GPU instance; then the plan's, largest first.
  const char* const expected_order[] = {
      "nvmlDeviceGetGpuInstances device=0 profile_id=19 -> SUCCESS gis=[9,10]",
      "nvmlComputeInstanceDestroy gi=9 ci=0 -> SUCCESS",
      "nvmlGpuInstanceDestroy gi=9 -> SUCCESS",
      "nvmlGpuInstanceDestroy gi=10 -> SUCCESS",
      "nvmlComputeInstanceDestroy gi=3 ci=0 -> SUCCESS",
      "nvmlGpuInstanceDestroy gi=3 -> SUCCESS",
      "nvmlGpuInstanceDestroy gi=2 -> SUCCESS",
      "nvmlDeviceCreateGpuInstance device=0 profile_id=9 -> SUCCESS gi=1",
      "nvmlGpuInstanceCreateComputeInstance gi=1 profile_id=2 -> SUCCESS ci=0",
      "nvmlDeviceCreateGpuInstance device=0 profile_id=15 -> SUCCESS gi=2",
      "nvmlGpuInstanceCreateComputeInstance gi=2 profile_id=0 -> SUCCESS ci=0",
      "nvmlDeviceCreateGpuInstance device=0 profile_id=19 -> SUCCESS gi=3",
      "nvmlGpuInstanceCreateComputeInstance gi=3 profile_id=0 -> SUCCESS ci=0",
  };
  size_t at = 0;
  for (const char* call : expected_order) {
    size_t found = run.calls.find(call, at);
    ASSERT_NE(found, std::string::npos) << "missing or out of order: " << call << "\n" << run.calls;
    at = found;
  }
  EXPECT_LT(run.calls.rfind("Destroy"), run.calls.find("Create"));  // every destroy before the first create
}

TEST(MigApplyCli, DryRunChangesNothingAndSameLayoutIsANoOp) {
  MigApplyRun dry = RunMigApply(MigApplyFixture("h100-mig.nvml"), "--plan " + RealPlan() + " --dry-run");
  ASSERT_EQ(dry.result.exit_code, 0) << dry.result.err;
  EXPECT_NE(dry.result.out.find("Dry run:"), std::string::npos);
  EXPECT_NE(dry.result.out.find("would create 1g.20gb"), std::string::npos) << dry.result.out;
  EXPECT_EQ(dry.calls.find("Destroy"), std::string::npos) << dry.calls;
  EXPECT_EQ(dry.calls.find("Create"), std::string::npos) << dry.calls;
  // The fixture's own layout as a plan: nothing to do.
  std::string same = PlanFile(
      "version: v1\nmig-configs:\n  same:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n"
      "        \"1g.10gb\": 2\n        \"2g.20gb\": 1\n        \"3g.40gb\": 1\n");
  MigApplyRun noop = RunMigApply(MigApplyFixture("h100-mig.nvml"), "--plan " + same);
  ASSERT_EQ(noop.result.exit_code, 0) << noop.result.err;
  EXPECT_NE(noop.result.out.find("GPU 0: already has the planned layout: nothing to do"), std::string::npos);
  EXPECT_EQ(noop.calls.find("Destroy"), std::string::npos);
}

TEST(MigApplyCli, RefusesWhileProcessesRunOrMigIsOff) {
  // The fixture with one process in GI 2 on frame 0.
  std::string text = ReadAll(MigApplyFixture("h100-mig.nvml"));
  size_t frame = text.find("[frame 0]\ntime_us = 0\n");
  ASSERT_NE(frame, std::string::npos);
  text.insert(frame + std::string("[frame 0]\ntime_us = 0\n").size(), "gpu0.process = 4242 1048576 2 0\n");
  std::string busy = testing::MakeTempDir("mig_apply_busy") + "/busy.nvml";
  std::ofstream(busy) << text;
  MigApplyRun run = RunMigApply(busy, "--plan " + RealPlan());
  ExpectOneLineError(run.result, "GPU 0 runs 1 process(es) (pid 4242)");
  EXPECT_EQ(run.calls.find("Destroy"), std::string::npos) << run.calls;
  // A whole H100 (MIG mode off).
  MigApplyRun off = RunMigApply(MigApplyFixture("h100.nvml"), "--plan " + RealPlan());
  ExpectOneLineError(off.result, "GPU 0: MIG mode is off");
}

TEST(MigApplyCli, BadPlansAreOneLineErrors) {
  std::string bad = PlanFile("version: v1\nmig-configs:\n  a:\n    - devices: [0,x]\n");
  ExpectOneLineError(RunMigApply(MigApplyFixture("h100-mig.nvml"), "--plan " + bad).result,
                     bad + ":4: device index 'x'");
  std::string two = PlanFile("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n"
                             "  b:\n    - devices: all\n      mig-enabled: false\n");
  ExpectOneLineError(RunMigApply(MigApplyFixture("h100-mig.nvml"), "--plan " + two).result, "choose one with --config");
  std::string unknown = PlanFile("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n"
                                 "      mig-devices:\n        \"5g.50gb\": 1\n");
  ExpectOneLineError(RunMigApply(MigApplyFixture("h100-mig.nvml"), "--plan " + unknown).result,
                     "profile '5g.50gb' is not a MIG profile");
}

}  // namespace
}  // namespace kraken
