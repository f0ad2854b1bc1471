// `kraken profile --kernels` with the real binary on the NVML replay library. There is no
// GPU here, so no kernel can be recorded: the tests check that the tracer is injected into
// the command, that a command which never starts CUDA and one whose CUDA start finds no
// device (the fake CUDA app does what the driver does with CUDA_INJECTION64_PATH) are both
// reported plainly, the run still stored, and that --pid is refused.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string ReplayEnv() {
  return std::string("KRAKEN_NVML_LIBRARY=") + KRAKEN_NVML_REPLAY_LIBRARY + " KRAKEN_NVML_REPLAY=" +
         testing::SourceDir() + "/tests/fixtures/nvml/h100.nvml ";
}

TEST(ProfileKernelsCliTest, PidIsRefusedWithTheReason) {
  RunResult r = RunKraken("profile --kernels --pid 1 --no-store", ReplayEnv());
  ExpectOneLineError(r, "--kernels cannot attach to a running process: the CUDA driver loads the kernel tracer");
}

TEST(ProfileKernelsCliTest, ABadCaptureWindowIsOneLineBeforeAnythingRuns) {
  std::string dir = testing::MakeTempDir("profile_kernels_bad_window");
  RunResult r = RunKraken("profile --kernels --kernel-delay 5x --no-store -- touch " + dir + "/ran", ReplayEnv());
  ExpectOneLineError(r, "--kernel-delay: '5x' is not a duration from 0 to 7d such as 30s");
  r = RunKraken("profile --kernels --kernel-duration 8d --no-store -- touch " + dir + "/ran", ReplayEnv());
  ExpectOneLineError(r, "--kernel-duration: '8d' is not a duration from 0 to 7d such as 30s");
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran"));
  r = RunKraken("profile --kernel-delay 10s --no-store -- touch " + dir + "/ran", ReplayEnv());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--kernels"), std::string::npos) << r.err;  // the window needs --kernels
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran"));
}

#ifdef KRAKEN_CUPTI_TESTS

simdjson::dom::element ParseJson(simdjson::dom::parser& parser, const std::string& text) {
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text;
  return doc;
}

TEST(ProfileKernelsCliTest, CommandWithoutCudaIsInjectedAndReportedAsSuch) {
  std::string dir = testing::MakeTempDir("profile_kernels_nocuda");
  std::string marker = dir + "/env";
  RunResult r = RunKraken("profile --kernels --json --no-store --interval 50ms --samples 3 -- sh -c "
                          "'echo \"$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH|$KRAKEN_CUPTI_OUTPUT\" > " +
                              marker + "'",
                          ReplayEnv());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string env = testing::ReadFileOrDie(marker);
  size_t bar = env.find('|');
  std::string injection = env.substr(0, bar);
  EXPECT_TRUE(injection.ends_with("/libkraken_cupti.so")) << env;
  EXPECT_TRUE(std::filesystem::exists(injection)) << env;
  EXPECT_EQ(env.substr(bar + 1, injection.size()), injection) << env;  // NVTX goes to the same library
  EXPECT_TRUE(env.ends_with("/kernels_%p.json\n")) << env;
  std::string trace_dir = env.substr(env.rfind('|') + 1, env.size() - env.rfind('|') - 1 - strlen("/kernels_%p.json\n"));
  EXPECT_FALSE(std::filesystem::exists(trace_dir)) << "the temporary trace folder was not removed: " << trace_dir;

  simdjson::dom::parser parser;
  simdjson::dom::element kernels = ParseJson(parser, r.out)["kernels"];
  EXPECT_EQ(int64_t(kernels["processes"]), 0);
  EXPECT_EQ(int64_t(kernels["kernels"]), 0);
  EXPECT_TRUE(kernels["trace_dir"].is_null());
  EXPECT_EQ(std::string_view(kernels["note"]),
            "no process of the command initialized CUDA, so the tracer never started (the CUDA driver loads it "
            "when a process first uses CUDA)");
}

TEST(ProfileKernelsCliTest, TheCaptureWindowFlagsReachTheCommandsEnvironment) {
  std::string dir = testing::MakeTempDir("profile_kernels_window_env");
  std::string marker = dir + "/env";
  RunResult r = RunKraken("profile --kernels --kernel-delay 1m30s --kernel-duration 250ms --kernel-start-on-nvtx "
                          "'ProfilerStep#10' --json --no-store --interval 50ms --samples 3 -- sh -c "
                          "'echo \"$KRAKEN_CUPTI_DELAY_MS|$KRAKEN_CUPTI_DURATION_MS|$KRAKEN_CUPTI_START_ON_NVTX\" > " +
                              marker + "'",
                          ReplayEnv());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ReadFileOrDie(marker), "90000|250|ProfilerStep#10\n");
}

TEST(ProfileKernelsCliTest, CudaProcessWithoutLibcuptiIsStoredAndSaysWhy) {
  std::string dir = testing::MakeTempDir("profile_kernels_nolib");
  std::string db = dir + "/kraken.db";
  RunResult r = RunKraken("profile --kernels --kernel-trace-dir " + dir + "/traces --db " + db +
                              " --interval 50ms --samples 3 -- " + KRAKEN_FAKE_CUDA_APP,
                          ReplayEnv() + "KRAKEN_CUPTI_LIBRARY=/nonexistent/libcupti.so ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The tracer's own line, from the command's process...
  EXPECT_NE(r.err.find("kraken-cupti: no kernel trace: KRAKEN_CUPTI_LIBRARY=/nonexistent/libcupti.so could not "
                       "be loaded"),
            std::string::npos)
      << r.err;
  // ...and kraken's summary, from the trace the process left.
  EXPECT_NE(r.out.find("  kernels:        none recorded; the tracer said why:\n    kernels_"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(".json: KRAKEN_CUPTI_LIBRARY=/nonexistent/libcupti.so could not be loaded"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    traces: " + dir + "/traces (Kineto format"), std::string::npos) << r.out;
  size_t traces = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/traces"))
    traces += entry.path().filename().string().starts_with("kernels_");
  EXPECT_EQ(traces, 1u);
  // The run is stored with what --kernels found.
  RunResult exported = RunKraken("export 1 --format json --db " + db);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = ParseJson(parser, exported.out);
  EXPECT_EQ(std::string_view(doc["metadata"]["attributes"]["kernel_traces"]), "1");
}

TEST(ProfileKernelsCliTest, CudaProcessWithoutDriverSaysWhyWhicheverLibcuptiIsFound) {
  std::string dir = testing::MakeTempDir("profile_kernels_nodriver");
  RunResult r = RunKraken("profile --kernels --json --no-store --interval 50ms --samples 3 -- " +
                              std::string(KRAKEN_FAKE_CUDA_APP),
                          ReplayEnv() + "KRAKEN_CUPTI_LIBRARY= ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element kernels = ParseJson(parser, r.out)["kernels"];
  EXPECT_EQ(int64_t(kernels["processes"]), 1);
  EXPECT_EQ(int64_t(kernels["kernels"]), 0);
  // With the toolkit's libcupti (CI, this project's machines): no driver, no CUDA device;
  // without one: libcupti was not found. Either way the reason is the trace's.
  std::string_view problem = kernels["problems"].at(0);
  EXPECT_TRUE(problem.find("no CUDA device") != std::string_view::npos ||
              problem.find("libcupti was not found") != std::string_view::npos)
      << problem;
  EXPECT_EQ(std::string_view(kernels["note"]).rfind("no kernel was recorded: kernels_", 0), 0u);
}

// The fake libcupti (src/collectors/cupti/fake_cupti.cc) delivers 3000 launches of 1 us
// each, 2 us apart: they are counted, timed and stored with the run's NVML samples.
TEST(ProfileKernelsCliTest, RecordedKernelsAreSummarizedAndStoredWithTheRun) {
  std::string dir = testing::MakeTempDir("profile_kernels_fake");
  std::string db = dir + "/kraken.db";
  RunResult r = RunKraken("profile --kernels --json --db " + db + " --interval 50ms --samples 3 -- " +
                              std::string(KRAKEN_FAKE_CUDA_APP),
                          ReplayEnv() + "KRAKEN_CUPTI_LIBRARY=" + KRAKEN_CUPTI_FAKE_LIBRARY +
                              " KRAKEN_FAKE_CUPTI_LAUNCHES=3000 KRAKEN_FAKE_CUPTI_PER_FLUSH=3000 ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // KRAKEN_CUPTI_QUIET: the summary reports instead
  simdjson::dom::parser parser;
  simdjson::dom::element doc = ParseJson(parser, r.out);
  simdjson::dom::element kernels = doc["kernels"];
  EXPECT_EQ(int64_t(kernels["processes"]), 1);
  EXPECT_EQ(int64_t(kernels["kernels"]), 3000);
  EXPECT_EQ(int64_t(kernels["runtime_calls"]), 3000);
  EXPECT_DOUBLE_EQ(double(kernels["kernel_time_s"]), 0.003);
  EXPECT_EQ(kernels["problems"].get_array().size(), 0u);
  EXPECT_TRUE(kernels["note"].is_null());
  // The workload type and bound come from the traced kernels, not from NVML's samples.
  EXPECT_TRUE(std::string_view(doc["workload_type"]["reason"]).starts_with("from the 3000 traced kernels, "))
      << r.out;
  EXPECT_TRUE(std::string_view(doc["bound"]["reason"]).starts_with("kernel time of the 3000 traced kernels: "))
      << r.out;
  EXPECT_NE(std::string_view(doc["bound"]["reason"]).find("; NVML over the whole run: "), std::string_view::npos);
  int64_t id = doc["stored"]["profile_id"];

  RunResult exported = RunKraken("export " + std::to_string(id) + " --format json --db " + db);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  simdjson::dom::parser export_parser;
  simdjson::dom::element stored = ParseJson(export_parser, exported.out);
  EXPECT_EQ(stored["kernels"].get_array().size(), 3000u);
  EXPECT_FALSE(stored["series"].get_array().size() == 0);  // the NVML samples are there too
  // Kernel times are Unix time, like the samples': the first kernel falls inside the run.
  int64_t first_kernel = stored["kernels"].at(0)["start_ns"];
  int64_t first_sample = stored["series"].at(0)["samples"].at(0).at(0);
  EXPECT_LT(std::abs(first_kernel - first_sample), int64_t{10'000'000'000});
}

// The fake libcupti's memory records (KRAKEN_FAKE_CUPTI_ALLOCATIONS=1: 1.5 GiB at the peak)
// are stored with the run: `kraken mig-plan` on the stored id sizes its memory from them.
TEST(ProfileKernelsCliTest, TheProgramsCudaAllocationsAreStoredAndSizeItsMigSlice) {
  std::string db = testing::MakeTempDir("profile_kernels_memory") + "/kraken.db";
  RunResult r = RunKraken("profile --kernels --json --db " + db + " --interval 50ms --samples 3 -- " +
                              std::string(KRAKEN_FAKE_CUDA_APP),
                          ReplayEnv() + "KRAKEN_CUPTI_LIBRARY=" + KRAKEN_CUPTI_FAKE_LIBRARY +
                              " KRAKEN_FAKE_CUPTI_LAUNCHES=3000 KRAKEN_FAKE_CUPTI_ALLOCATIONS=1 ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  int64_t id = ParseJson(parser, r.out)["stored"]["profile_id"];
  RunResult plan = RunKraken("mig-plan --gpu h100-sxm --explain " + std::to_string(id) + " --db " + db);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(plan.out.find("memory not measured"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("covers memory 1.65 GiB"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("CUDA allocations outstanding (CUPTI memory records; CUDA context not included)"),
            std::string::npos)
      << plan.out;
}

// --kernel-counters: the fake libcupti's per-kernel counters (fake_range_profiler.cc) reach
// the --out profile tied to their kernels, and `kraken analyze` classifies those kernels on
// the roofline from them: 200 of 500 kernels (the limit) with 8718336 FLOPs over 811008
// DRAM bytes each.
TEST(ProfileKernelsCliTest, KernelCountersAreTiedToTheirKernelsAndUsedByAnalyze) {
  std::string dir = testing::MakeTempDir("profile_kernels_counters");
  std::string out = dir + "/run.json";
  RunResult r = RunKraken("profile --kernels --kernel-counters --json --out " + out +
                              " --interval 50ms --samples 3 -- " + std::string(KRAKEN_FAKE_CUDA_APP),
                          ReplayEnv() + "KRAKEN_CUPTI_LIBRARY=" + KRAKEN_CUPTI_FAKE_LIBRARY +
                              " KRAKEN_FAKE_CUPTI_LAUNCHES=500 KRAKEN_CUPTI_COUNTERS_MAX_KERNELS=200 ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element kernels = ParseJson(parser, r.out)["kernels"];
  EXPECT_EQ(int64_t(kernels["kernels"]), 500);
  EXPECT_EQ(int64_t(kernels["kernels_with_counters"]), 200);
  EXPECT_EQ(kernels["problems"].get_array().size(), 0u);

  RunResult analyzed = RunKraken("analyze " + out + " --json");
  ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
  simdjson::dom::parser analyze_parser;
  simdjson::dom::element doc = ParseJson(analyze_parser, analyzed.out);
  EXPECT_DOUBLE_EQ(double(doc["workload"]["bound_mix"]["measured_basis_pct"]), 40);
  simdjson::dom::element top = doc["kernels"]["top"].at(0);
  EXPECT_EQ(std::string_view(top["basis"]), "roofline");
  EXPECT_NEAR(double(top["arithmetic_intensity"]), (67584 + 2 * 4325376) / 811008.0, 0.01);
}

TEST(ProfileKernelsCliTest, KernelCountersNeedKernels) {
  RunResult r = RunKraken("profile --kernel-counters --no-store -- true", ReplayEnv());
  ExpectOneLineError(r, "--kernel-counters requires --kernels");
}

// Counters replay kernels from the first launch on: a capture window would not bound them.
TEST(ProfileKernelsCliTest, KernelCountersAndACaptureWindowAreRefusedTogether) {
  RunResult r = RunKraken("profile --kernels --kernel-counters --kernel-delay 1s --no-store -- true", ReplayEnv());
  ExpectOneLineError(r, "--kernel-counters cannot be combined with a capture window");
}

// The capture window reaches the tracer: the stand-in runs 600 ms while the fake libcupti
// launches a kernel every 2 us; only the 50 ms from 200 ms on are recorded.
TEST(ProfileKernelsCliTest, TheCaptureWindowBoundsWhatIsRecorded) {
  std::string dir = testing::MakeTempDir("profile_kernels_window");
  RunResult r = RunKraken("profile --kernels --kernel-delay 200ms --kernel-duration 50ms --kernel-trace-dir " + dir +
                              " --json --no-store --interval 50ms -- " + std::string(KRAKEN_FAKE_CUDA_APP) + " 600",
                          ReplayEnv() + "KRAKEN_CUPTI_LIBRARY=" + KRAKEN_CUPTI_FAKE_LIBRARY +
                              " KRAKEN_FAKE_CUPTI_LAUNCHES=-1 KRAKEN_FAKE_CUPTI_PER_FLUSH=1000000 "
                              "KRAKEN_CUPTI_FLUSH_MS=20 KRAKEN_CUPTI_ACTIVITIES=kernels ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element kernels = ParseJson(parser, r.out)["kernels"];
  EXPECT_EQ(int64_t(kernels["processes"]), 1);
  // 25 000 in 50 ms (the fake launches on the clock, one per 2 us); a window never ended would
  // hold the 200 000 from 200 ms to the end of the 600 ms run. A late writer lengthens the
  // window, by up to 250 ms here on a busy machine.
  EXPECT_GT(int64_t(kernels["kernels"]), 20'000);
  EXPECT_LT(int64_t(kernels["kernels"]), 150'000);
  std::string trace;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) trace = entry.path().string();
  std::string text = testing::ReadFileOrDie(trace);
  EXPECT_NE(text.find("\"kraken_cupti_window_delay_ms\": 200,"), std::string::npos);
  EXPECT_NE(text.find("\"kraken_cupti_window_duration_ms\": 50,"), std::string::npos);
  EXPECT_NE(text.find("\"kraken_cupti_window_end_us\""), std::string::npos);
}

TEST(ProfileKernelsCliTest, AWindowAfterTheCommandEndedSaysSo) {
  RunResult r = RunKraken("profile --kernels --kernel-delay 1m --json --no-store --interval 50ms -- " +
                              std::string(KRAKEN_FAKE_CUDA_APP),
                          ReplayEnv() + "KRAKEN_CUPTI_LIBRARY=" + KRAKEN_CUPTI_FAKE_LIBRARY + " ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element kernels = ParseJson(parser, r.out)["kernels"];
  EXPECT_EQ(int64_t(kernels["kernels"]), 0);
  EXPECT_EQ(std::string_view(kernels["note"]),
            "no kernel was recorded: the capture window (--kernel-delay) had not begun when the command's CUDA "
            "processes ended");
}

#endif  // KRAKEN_FAKE_CUDA_APP

}  // namespace
}  // namespace kraken
