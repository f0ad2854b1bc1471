// End-to-end tests of `kraken trial` with the real binary on the NVML replay library
// (docs/trial.md). The workload is a small shell script: it records the CUDA_VISIBLE_DEVICES
// it got and the pids of its tree (itself, a child, and a worker that escapes into its own
// session), prints "throughput: 999.0 samples/s" at once (inside the warmup), and after
// 0.5 s a steady throughput that depends on the device it was given. The replay reports the
// captured workload pid as the script (KRAKEN_NVML_REPLAY_PID_MAP=...:self/0), so the memory
// figures are the capture's exact bytes. The measured windows are 1.5 s: the steady
// readings start 0.5 s after the script (plus its start-up), which on a loaded 2-core CI
// machine running ctest -j2 left a 400-500 ms window empty in about 4 runs of 10.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"
#include "cli/trial_cli_test_support.h"

namespace kraken {
namespace {

using namespace trial_testing;

constexpr double kH100WorkloadBytes = 16452157440;  // pid 11345 in h100.nvml / h100x8.nvml
constexpr double kMigWorkloadBytes = 7847542784;    // pid 21198 in GPU instance 2 of h100-mig.nvml

TEST(TrialCliTest, TwoGpusEachGetTheirUuidAndAreRankedByMeasuredThroughput) {
  std::string dir = testing::MakeTempDir("trial_gpus");
  std::string workload = WriteWorkload(dir, "  " + Uuid(0) + ") t=120.0 ;;\n  " + Uuid(1) + ") t=40.0 ;;");
  RunResult r = RunKraken("trial --candidates 0," + Uuid(1) + " --warmup 300ms --duration 1500ms --interval 50ms "
                          "--grace 2s --json --db " + dir + "/kraken.db --throughput-regex " + kRegex + " -- " +
                              workload,
                          Replay("h100x8.nvml", "11345:self/0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Lines(dir + "/visible"), (std::vector<std::string>{Uuid(0), Uuid(1)}));
  ExpectNoSurvivor(dir, 6);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::array candidates = doc["candidates"];
  ASSERT_EQ(candidates.size(), 2u);
  const double medians[] = {120.0, 40.0};
  std::vector<int64_t> profile_ids;
  for (size_t i = 0; i < 2; ++i) {
    simdjson::dom::element c = candidates.at(i);
    EXPECT_EQ(Str(c["uuid"]), Uuid(static_cast<int>(i)));
    EXPECT_EQ(Str(c["cuda_visible_devices"]), Uuid(static_cast<int>(i)));
    EXPECT_EQ(int64_t(c["gpu_index"]), static_cast<int64_t>(i));
    EXPECT_EQ(Str(c["device_name"]), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(Str(c["catalog_id"]), "h100-sxm");
    EXPECT_TRUE(c["mig_profile"].is_null());
    EXPECT_EQ(Number(c["gpu_fraction"]), 1);
    EXPECT_EQ(Str(c["exit"]["state"]), "stopped");
    EXPECT_EQ(Str(c["exit"]["stop_signal"]), "SIGTERM");
    EXPECT_EQ(int64_t(c["exit"]["exit_code"]), 128 + SIGTERM);
    // The 999 printed inside the warmup is ignored; every later reading is the steady value.
    EXPECT_EQ(int64_t(c["throughput"]["warmup_readings_ignored"]), 1);
    EXPECT_GE(int64_t(c["throughput"]["readings"]), 1);
    EXPECT_EQ(Number(c["throughput"]["median"]), medians[i]);
    EXPECT_EQ(Number(c["throughput"]["max"]), medians[i]);
    EXPECT_EQ(Number(c["memory_peak_bytes"]), kH100WorkloadBytes);
    EXPECT_EQ(Str(c["util_pct"]["basis"]), "tree SM util");
    EXPECT_EQ(Number(c["util_pct"]["p95"]), 99);  // the capture's process runs at 99 %
    // h100x8.nvml copies the one captured process onto all 8 GPUs: kraken says so.
    EXPECT_EQ(c["gpus_seen"].get_array().size(), 8u);
    profile_ids.push_back(int64_t(c["profile_id"]));
  }
  simdjson::dom::array ranked = doc["ranking"]["ranked"];
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(Str(ranked.at(0)["uuid"]), Uuid(0));
  EXPECT_EQ(Number(ranked.at(0)["throughput_per_gpu_fraction"]), 120);
  EXPECT_EQ(Str(ranked.at(1)["uuid"]), Uuid(1));
  EXPECT_EQ(int64_t(ranked.at(1)["rank"]), 2);
  EXPECT_DOUBLE_EQ(Number(ranked.at(1)["relative_to_best"]), 40.0 / 120.0);
  EXPECT_EQ(Str(doc["ranking"]["per_dollar"]), "not ranked: the device catalog has no prices");
  // Each candidate's run is a stored profile tagged with the trial.
  RunResult exported = RunKraken("export " + std::to_string(profile_ids[1]) + " --db " + dir + "/kraken.db");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  simdjson::dom::parser export_parser;
  simdjson::dom::element profile;
  ASSERT_EQ(export_parser.parse(exported.out).get(profile), simdjson::SUCCESS);
  simdjson::dom::element attributes = profile["metadata"]["attributes"];
  EXPECT_EQ(Str(attributes["trial.id"]), Str(doc["trial_id"]));
  EXPECT_EQ(Str(attributes["trial.candidate"]), Uuid(1));
  EXPECT_EQ(Str(attributes["trial.throughput_median"]), "40");
}

TEST(TrialCliTest, AutoOnEightGpusWithoutAThroughputSourceReportsGpuFactsOnly) {
  std::string dir = testing::MakeTempDir("trial_auto");
  std::string workload = WriteWorkload(dir, "");
  RunResult r = RunKraken("trial --warmup 200ms --duration 100ms --interval 50ms --grace 2s --no-store --quiet -- " +
                              workload,
                          Replay("h100x8.nvml", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> expected;
  for (int i = 0; i < 8; ++i) expected.push_back(Uuid(i));
  EXPECT_EQ(Lines(dir + "/visible"), expected);
  ExpectNoSurvivor(dir, 24);
  EXPECT_NE(r.out.find("  throughput: not measured (no --throughput-regex or --throughput-file): GPU-side facts "
                       "only\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  candidates: 8 run (auto), warmup 0.2 s, duration 0.1 s, sampled every 0.05 s\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    none ranked\n"), std::string::npos) << r.out;
  // No pid map: the capture's processes are strangers, the tree is never seen on the GPU.
  EXPECT_NE(r.out.find("  note: candidate 8: no process of the workload appeared in NVML's process list on GPU 7: "
                       "its memory and SM figures are 0 by absence"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    unranked: " + Uuid(7) + ": throughput not measured"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("samples/s"), std::string::npos);  // --quiet: nothing of the workload's output
}

// h100-mig.nvml: GI 2 3g.40gb (MIG-0), GI 3 2g.20gb (MIG-1), GI 9 and 10 1g.10gb (MIG-2/3).
TEST(TrialCliTest, MigInstancesRankByThroughputPerGpuFraction) {
  std::string dir = testing::MakeTempDir("trial_mig");
  std::string workload = WriteWorkload(dir, "  " + Uuid(0, "MIG") + ") t=90 ;;\n  " + Uuid(1, "MIG") +
                                                ") t=50 ;;\n  " + Uuid(2, "MIG") + ") t=40 ;;\n  " + Uuid(3, "MIG") +
                                                ") t=20 ;;");
  std::string out = dir + "/results/trial.json";
  std::filesystem::create_directories(dir + "/results");
  RunResult r = RunKraken("trial --candidates auto --warmup 300ms --duration 1500ms --interval 50ms --grace 2s --json "
                          "--out " + out + " --throughput-regex " + kRegex + " -- " + workload,
                          Replay("h100-mig.nvml", "21198:self/0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ReadFileOrDie(out), r.out);
  EXPECT_EQ(Lines(dir + "/visible"),
            (std::vector<std::string>{Uuid(0, "MIG"), Uuid(1, "MIG"), Uuid(2, "MIG"), Uuid(3, "MIG")}));
  ExpectNoSurvivor(dir, 12);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_TRUE(doc["stored_db"].is_null());
  EXPECT_EQ(doc["candidates_left_out"].get_array().size(), 0u);
  simdjson::dom::array candidates = doc["candidates"];
  ASSERT_EQ(candidates.size(), 4u);
  const char* profiles[] = {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"};
  const int64_t instances[] = {2, 3, 9, 10};
  const double slices[] = {3, 2, 1, 1};
  const double medians[] = {90, 50, 40, 20};
  for (size_t i = 0; i < 4; ++i) {
    simdjson::dom::element c = candidates.at(i);
    EXPECT_EQ(Str(c["mig_profile"]), profiles[i]);
    EXPECT_EQ(int64_t(c["gpu_instance_id"]), instances[i]);
    EXPECT_DOUBLE_EQ(Number(c["gpu_fraction"]), slices[i] / 7);
    EXPECT_EQ(Number(c["throughput"]["median"]), medians[i]);
    EXPECT_TRUE(c["util_pct"].is_null());  // NVML reports no utilization in MIG mode
    EXPECT_EQ(Number(c["memory_peak_bytes"]), kMigWorkloadBytes);
    // The replay shows the captured process in GI 2 whatever the candidate: said, not hidden.
    EXPECT_EQ(int64_t(c["gpu_instances_seen"].at(0)), 2);
    EXPECT_EQ(int64_t(c["gpus_seen"].at(0)), 0);
  }
  // Per GPU: 90 / (3/7) = 210, 50 / (2/7) = 175, 40 x 7 = 280, 20 x 7 = 140.
  simdjson::dom::array ranked = doc["ranking"]["ranked"];
  ASSERT_EQ(ranked.size(), 4u);
  const int order[] = {2, 0, 1, 3};
  const double per_gpu[] = {280, 210, 175, 140};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(Str(ranked.at(k)["uuid"]), Uuid(order[k], "MIG"));
    EXPECT_NEAR(Number(ranked.at(k)["throughput_per_gpu_fraction"]), per_gpu[k], 1e-9);
  }
}

TEST(TrialCliTest, ThroughputFileWrittenAfterTheWarmupCounts) {
  std::string dir = testing::MakeTempDir("trial_file");
  std::string file = dir + "/throughput";
  std::string workload = WriteWorkload(dir, "", "echo 999 > " + file + "; (sleep 0.5; while :; do echo 55.5 > " +
                                                    file + "; sleep 0.02; done) &");
  RunResult r = RunKraken("trial --candidates 0 --warmup 300ms --duration 1500ms --interval 50ms --grace 2s --json "
                          "--no-store --quiet --throughput-file " + file + " -- " + workload,
                          Replay("h100.nvml", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(Str(doc["throughput_source"]["kind"]), "file");
  simdjson::dom::element t = doc["candidates"].at(0)["throughput"];
  EXPECT_GE(int64_t(t["readings"]), 1);
  EXPECT_EQ(Number(t["median"]), 55.5);
  EXPECT_EQ(Number(t["max"]), 55.5);  // the 999 of the warmup never counts
  ExpectNoSurvivor(dir, 3);
}

TEST(TrialCliTest, AWorkloadIgnoringSigtermIsKilled) {
  std::string dir = testing::MakeTempDir("trial_kill");
  std::string workload = WriteWorkload(dir, "", "trap '' TERM");
  RunResult r = RunKraken("trial --candidates 0 --warmup 200ms --duration 100ms --interval 50ms --grace 200ms --json "
                          "--no-store --quiet -- " + workload,
                          Replay("h100.nvml", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::element exit = doc["candidates"].at(0)["exit"];
  EXPECT_EQ(Str(exit["stop_signal"]), "SIGKILL");
  EXPECT_EQ(int64_t(exit["exit_code"]), 128 + SIGKILL);
  ExpectNoSurvivor(dir, 3);
}

TEST(TrialCliTest, StdinIsEmptyPythonIsUnbufferedAndAStoppedWorkloadEndsOnSigterm) {
  // Reading stdin gets end-of-file at once (not SIGTTIN); the workload then stops itself, and
  // SIGTERM (with the SIGCONT kraken sends along) ends it well before the 5 s grace.
  RunResult r = RunKraken("trial --candidates 0 --warmup 0s --duration 200ms --interval 50ms --grace 5s --json "
                          "--no-store -- sh -c 'echo \"python: $PYTHONUNBUFFERED\"; read line; echo \"read: $?\"; "
                          "kill -STOP $$'",
                          Replay("h100.nvml", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[trial 1] read: 1\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[trial 1] python: 1\n"), std::string::npos) << r.err;  // unbuffered Python output
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::element exit = doc["candidates"].at(0)["exit"];
  EXPECT_EQ(Str(exit["state"]), "stopped");
  EXPECT_EQ(Str(exit["stop_signal"]), "SIGTERM");
  EXPECT_EQ(int64_t(exit["exit_code"]), 128 + SIGTERM);
}

TEST(TrialCliTest, AWorkloadThatFailsIsNotRanked) {
  std::string dir = testing::MakeTempDir("trial_fail");
  RunResult r = RunKraken("trial --candidates 0 --warmup 100ms --duration 1s --interval 50ms --json --no-store "
                          "--throughput-regex " + std::string(kRegex) +
                              " -- sh -c 'sleep 0.2; echo \"throughput: 7 samples/s\"; exit 3'",
                          Replay("h100.nvml", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::element c = doc["candidates"].at(0);
  EXPECT_EQ(Str(c["exit"]["state"]), "exited");
  EXPECT_EQ(int64_t(c["exit"]["exit_code"]), 3);
  EXPECT_EQ(Number(c["throughput"]["median"]), 7);
  EXPECT_EQ(Str(c["sampling_stop"]), "the profiled process tree ended");
  EXPECT_EQ(Str(doc["ranking"]["unranked"].at(0)["reason"]), "the workload failed (exit code 3)");
}

TEST(TrialCliTest, InputErrorsAreOneLineAndStartNothing) {
  std::string dir = testing::MakeTempDir("trial_errors");
  std::string marker = dir + "/started";
  std::string replay = Replay("h100x8.nvml", "");
  ExpectOneLineError(RunKraken("trial --no-store --throughput-regex 'x([0-9' -- touch " + marker, replay),
                     "--throughput-regex 'x([0-9' is not a valid regular expression");
  ExpectOneLineError(RunKraken("trial --no-store --throughput-regex 'x[0-9]+' -- touch " + marker, replay),
                     "has no capture group");
  ExpectOneLineError(RunKraken("trial --no-store --candidates 0,9 -- touch " + marker, replay),
                     "--candidates: no GPU with index 9 (NVML reports 8)");
  ExpectOneLineError(RunKraken("trial --no-store --candidates MIG-nope -- touch " + marker, replay),
                     "'MIG-nope' is neither a GPU index nor a GPU or MIG UUID NVML reports");
  ExpectOneLineError(RunKraken("trial --no-store --candidates 0 -- touch " + marker, Replay("h100-mig.nvml", "")),
                     "GPU 0 is in MIG mode; name its MIG instances instead: MIG-00000000-0000-0000-0000-000000000000, "
                     "MIG-00000001");
  ExpectOneLineError(RunKraken("trial --no-store --duration soon -- touch " + marker, replay),
                     "--duration: 'soon' is not a duration");
  ExpectOneLineError(RunKraken("trial --no-store --nvml-library /nonexistent/libnvidia-ml.so.1 -- touch " + marker),
                     "cannot load the NVML library /nonexistent/libnvidia-ml.so.1");
  ExpectOneLineError(RunKraken("trial --no-store --candidates 0 -- /nonexistent/command", replay),
                     "cannot run '/nonexistent/command'");
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(TrialCliTest, SigintStopsTheCurrentCandidateKillsItsTreeAndPrintsWhatWasMeasured) {
  std::string dir = testing::MakeTempDir("trial_sigint");
  std::string workload = WriteWorkload(dir, "  " + Uuid(0) + ") t=120.0 ;;");
  pid_t kraken = fork();
  if (kraken == 0) {
    int out = open((dir + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open((dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    setenv("KRAKEN_NVML_LIBRARY", KRAKEN_NVML_REPLAY_LIBRARY, 1);
    setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100x8.nvml").c_str(), 1);
    execl(KRAKEN_BINARY_PATH, KRAKEN_BINARY_PATH, "trial", "--candidates", "0,1", "--warmup", "200ms", "--duration",
          "30s", "--interval", "50ms", "--no-store", "--json", "--throughput-regex", "throughput: ([0-9.]+) samples/s",
          "--", workload.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Past the first candidate's warmup and its first steady readings.
  for (int i = 0; i < 2000 && Lines(dir + "/pids").size() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(kraken, SIGINT);
  int status = 0;
  waitpid(kraken, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << testing::ReadFileOrDie(dir + "/stderr");
  EXPECT_EQ(Lines(dir + "/visible"), std::vector<std::string>{Uuid(0)});  // the second never started
  ExpectNoSurvivor(dir, 3);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string out = testing::ReadFileOrDie(dir + "/stdout");
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS) << out;
  EXPECT_EQ(Str(doc["interrupted_by"]), "SIGINT");
  EXPECT_EQ(int64_t(doc["candidates_not_run"]), 1);
  ASSERT_EQ(doc["candidates"].get_array().size(), 1u);
  simdjson::dom::element c = doc["candidates"].at(0);
  EXPECT_TRUE(bool(c["exit"]["interrupted"]));
  EXPECT_EQ(Str(c["exit"]["stop_signal"]), "SIGTERM");
  EXPECT_EQ(Number(c["throughput"]["median"]), 120);
  EXPECT_EQ(Str(doc["ranking"]["unranked"].at(0)["reason"]), "interrupted by a stop signal");
}

}  // namespace
}  // namespace kraken
