// `kraken annotate --print-ncu-command -- CMD...`: the argv of a profile Job's container,
// which scripts/gpu-validate.sh runs on a real GPU. The same words, in the same order, as
// the Job the controller creates (k8s/controller/profile_run_test.cc checks the Job's).
#include <gtest/gtest.h>

#include "cli/cli_test_support.h"

namespace kraken {
namespace {

TEST(AnnotateNcuCommandCli, PrintsTheProfileJobsArgvOneWordALine) {
  RunResult r = RunKraken("annotate --print-ncu-command --ncu-launch-count 7 -- /opt/app/kernel_mix 2 --flag");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "ncu\n--csv\n--page\nraw\n--section\nSpeedOfLight\n--section\nSpeedOfLight_RooflineChart\n"
            "--section\nLaunchStats\n--section\nOccupancy\n--target-processes\nall\n--launch-count\n7\n"
            "/opt/app/kernel_mix\n2\n--flag\n");
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(AnnotateNcuCommandCli, DefaultLaunchCountIsTheControllers) {
  RunResult r = RunKraken("annotate --print-ncu-command -- app");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n--launch-count\n50\napp\n"), std::string::npos) << r.out;
}

TEST(AnnotateNcuCommandCli, NoCommandOrACommandWithoutTheFlagIsRefused) {
  ExpectOneLineError(RunKraken("annotate --print-ncu-command"), "needs the command to wrap");
  ExpectOneLineError(RunKraken("annotate --prometheus http://127.0.0.1:1 --namespace ns -- app"),
                     "annotate takes no command ('app')");
}

}  // namespace
}  // namespace kraken
