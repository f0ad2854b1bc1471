#include "profiling/sampling_loop.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "profiling/child_process.h"

namespace kraken::profiling {
namespace {

// The loop on the replayed H100 (tests/fixtures/nvml/h100.nvml) and a tree rooted at `pid`.
struct ReplayedSampling {
  std::unique_ptr<nvml::NvmlSession> session;
  ReplayedSampling() {
    ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100.nvml").c_str(), 1);
    nvml::NvmlSamplerOptions options;
    options.proc_root = "";
    auto opened = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, options);
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    if (opened.ok()) session = std::make_unique<nvml::NvmlSession>(std::move(*opened));
  }
};

// A command that ended before kraken got the CPU back after the fork (a loaded machine)
// still gets the first pass: whether a run has samples must not depend on the scheduler.
TEST(SamplingLoopTest, ACommandThatEndedBeforeTheFirstPassStillGetsIt) {
  ReplayedSampling replay;
  ASSERT_NE(replay.session, nullptr);
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // gone before the loop starts
  ProcessTreeTracker tree(child, true);
  int on_pass_calls = 0;
  SamplingHooks hooks;
  hooks.target_ended = [] { return true; };
  hooks.stop_requested = [] { return false; };
  hooks.on_pass = [&](const SampleBatch& kept, const PassRecord&) {
    ++on_pass_calls;
    EXPECT_FALSE(kept.values.empty());  // the GPU's values of that pass
    return Status::Ok();
  };
  SamplingResult run = RunSampling(*replay.session->sampler, tree, {.interval_ns = 50'000'000, .max_passes = 3}, hooks);
  EXPECT_EQ(run.reason, StopReason::kTargetEnded);
  EXPECT_EQ(run.passes.size(), 1u);
  EXPECT_EQ(on_pass_calls, 1);
}

// A stop signal that came before the first pass still ends the run with none.
TEST(SamplingLoopTest, AStopBeforeTheFirstPassTakesNone) {
  ReplayedSampling replay;
  ASSERT_NE(replay.session, nullptr);
  ProcessTreeTracker tree(::getpid(), true);
  SamplingHooks hooks;
  hooks.target_ended = [] { return false; };
  hooks.stop_requested = [] { return true; };
  SamplingResult run = RunSampling(*replay.session->sampler, tree, {.interval_ns = 50'000'000, .max_passes = 3}, hooks);
  EXPECT_EQ(run.reason, StopReason::kSignal);
  EXPECT_TRUE(run.passes.empty());
}

}  // namespace
}  // namespace kraken::profiling
