// End-to-end tests of `kraken profile` with the real binary on the NVML replay library.
// KRAKEN_NVML_REPLAY_PID_MAP (test-only, docs/nvml-capture-format.md) reports the capture's
// processes under pids of the tree kraken follows, so attribution is checked exactly:
// h100.nvml frames 0-4 are idle (utilization 0, no process), frames 5-9 run pids 11327
// (2690646016 B), 11328 (1616904192 B) and 11345 (16452157440 B, process SM 99 %) at device
// utilization 100 %. With --samples 10 the passes see frames 0..9 once each.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"

namespace kraken {
namespace {

constexpr double kPid11345Bytes = 16452157440;
constexpr double kPid11327Bytes = 2690646016;

std::string Fixture(const std::string& name) { return testing::SourceDir() + "/tests/fixtures/nvml/" + name; }

void UseReplay(const std::string& capture, const std::string& pid_map) {
  ::setenv("KRAKEN_NVML_LIBRARY", KRAKEN_NVML_REPLAY_LIBRARY, 1);
  ::setenv("KRAKEN_NVML_REPLAY", Fixture(capture).c_str(), 1);
  ::setenv("KRAKEN_NVML_REPLAY_PID_MAP", pid_map.c_str(), 1);
}

// A kraken started in the background, its standard output and error in files.
struct Background {
  pid_t pid = 0;
  std::string out_path, err_path;

  Background(const std::vector<std::string>& args, const std::string& dir) {
    out_path = dir + "/stdout";
    err_path = dir + "/stderr";
    pid = fork();
    if (pid == 0) {
      int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<char*> argv{const_cast<char*>(KRAKEN_BINARY_PATH)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(KRAKEN_BINARY_PATH, argv.data());
      _exit(127);
    }
  }
  // Waits; returns the exit code (-signal when killed).
  int Wait() {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }
  std::string out() const { return testing::ReadFileOrDie(out_path); }
  std::string err() const { return testing::ReadFileOrDie(err_path); }
};

struct KrakenRun {
  int exit_code = -1;
  std::string out, err;
};

KrakenRun RunKraken(const std::vector<std::string>& args) {
  Background b(args, testing::MakeTempDir("profile_cli"));
  KrakenRun r;
  r.exit_code = b.Wait();
  r.out = b.out();
  r.err = b.err();
  return r;
}

// The children of `parent` now, from /proc.
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // read(2), not an ifstream: a process that exits between the listing and the read
    // fails it with ESRCH, which libstdc++'s filebuf throws (seen in CI under ASan).
    int fd = open((entry.path() / "stat").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buffer[1024];
    ssize_t got = read(fd, buffer, sizeof(buffer));
    close(fd);
    if (got <= 0) continue;
    std::string stat(buffer, static_cast<size_t>(got));
    size_t name_end = stat.rfind(')');
    if (name_end == std::string::npos) continue;
    std::istringstream rest(stat.substr(name_end + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) children.push_back(std::stoi(name));
  }
  return children;
}

// Waits (up to 20 s) until `parent` has started a child.
void WaitForChild(pid_t parent) {
  for (int i = 0; i < 2000 && ChildrenOf(parent).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(ChildrenOf(parent).empty());
}

double Number(simdjson::dom::element e) {
  double v = -1;
  EXPECT_EQ(e.get_double().get(v), simdjson::SUCCESS);
  return v;
}

TEST(ProfileCliTest, WithoutNvmlTheCommandIsNotStarted) {
  std::string marker = testing::MakeTempDir("profile_nonvml") + "/started";
  ::unsetenv("KRAKEN_NVML_LIBRARY");
  KrakenRun r = RunKraken(
      {"profile", "--no-store", "--nvml-library", "/nonexistent/libnvidia-ml.so.1", "--", "touch", marker});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("kraken: error: cannot load the NVML library /nonexistent/libnvidia-ml.so.1 (", 0), 0u)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(ProfileCliTest, ExitCodeOfTheCommandIsKrakensExitCode) {
  UseReplay("h100.nvml", "");
  EXPECT_EQ(RunKraken({"profile", "--no-store", "--", "sh", "-c", "exit 7"}).exit_code, 7);
  EXPECT_EQ(RunKraken({"profile", "--no-store", "--", "sh", "-c", "kill -TERM $$"}).exit_code, 128 + SIGTERM);
  KrakenRun missing = RunKraken({"profile", "--no-store", "--", "/nonexistent/command"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot run '/nonexistent/command'"), std::string::npos) << missing.err;
}

TEST(ProfileCliTest, AttributesTheCapturedProcessesToTheTreeOnH100) {
  // sh (self/0) stands for 11345, its sleep (self/0/0) for 11327; 11328 stays someone else's.
  UseReplay("h100.nvml", "11345:self/0,11327:self/0/0");
  // --slow-interval 0: process utilization every pass, one per replayed frame (the
  // capture's frames are 1 s apart, a slow interval each).
  KrakenRun r = RunKraken({"profile", "--no-store", "--json", "--interval", "50ms", "--slow-interval", "0", "--samples",
                           "10", "--", "sh", "-c",
                     "sleep 3; exit 3"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(Number(doc["passes"]), 10);
  EXPECT_EQ(std::string_view(doc["stop_reason"]), "the pass limit was reached");
  EXPECT_EQ(int64_t(doc["exit_code"]), 3);
  simdjson::dom::array gpus = doc["gpus"];
  ASSERT_EQ(gpus.size(), 1u);
  simdjson::dom::element gpu = gpus.at(0);
  EXPECT_EQ(std::string_view(gpu["name"]), "NVIDIA H100 80GB HBM3");
  // Tree SM utilization: 0 in frames 0-4, 99 (pid 11345) in frames 5-9.
  EXPECT_EQ(Number(gpu["tree_sm_util_pct"]["p50"]), 49.5);
  EXPECT_EQ(Number(gpu["tree_sm_util_pct"]["p90"]), 99);
  EXPECT_EQ(Number(gpu["tree_sm_util_pct"]["p99"]), 99);
  EXPECT_EQ(Number(gpu["device_util_pct"]["p50"]), 50);
  EXPECT_EQ(Number(gpu["device_util_pct"]["p99"]), 100);
  EXPECT_EQ(Number(gpu["tree_memory_peak_bytes"]), kPid11345Bytes + kPid11327Bytes);
  EXPECT_EQ(int64_t(gpu["passes_present"]), 5);
  EXPECT_EQ(int64_t(gpu["passes_shared"]), 5);  // 11328 is not in the tree
  EXPECT_EQ(Number(doc["memory_peak_bytes"]), kPid11345Bytes + kPid11327Bytes);
  EXPECT_EQ(int64_t(doc["idle_gaps"]["count"]), 1);
  EXPECT_EQ(int64_t(doc["idle_gaps"]["longest_passes"]), 5);
  EXPECT_EQ(Number(doc["idle_gaps"]["total_s"]), 0.25);
  EXPECT_EQ(std::string_view(doc["bound"]["bound"]), "unknown");  // the capture has no GPM values
  EXPECT_EQ(std::string_view(doc["workload_type"]["type"]), "unknown");
  EXPECT_EQ(std::string_view(doc["periodicity"]["verdict"]), "too short");
}

TEST(ProfileCliTest, EightGpusOfH100x8AreAllAttributed) {
  UseReplay("h100x8.nvml", "11345:self/0");
  // --slow-interval 0: process utilization every pass, one per replayed frame (the
  // capture's frames are 1 s apart, a slow interval each).
  KrakenRun r = RunKraken({"profile", "--no-store", "--json", "--interval", "50ms", "--slow-interval", "0", "--samples",
                           "10", "--", "sh", "-c",
                     "sleep 3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::array gpus = doc["gpus"];
  ASSERT_EQ(gpus.size(), 8u);
  for (simdjson::dom::element gpu : gpus) {
    EXPECT_EQ(Number(gpu["tree_memory_peak_bytes"]), kPid11345Bytes);
    EXPECT_EQ(Number(gpu["tree_sm_util_pct"]["p99"]), 99);
  }
  EXPECT_EQ(Number(doc["memory_peak_bytes"]), 8 * kPid11345Bytes);
}

// h100-mig.nvml: pids 21180, 21181, 21198 (7847542784 B) in GPU instance 2; NVML reports no
// utilization of any kind in MIG mode.
TEST(ProfileCliTest, MigRunHasExactMemoryAndUnknownUtilization) {
  UseReplay("h100-mig.nvml", "21198:self/0");
  KrakenRun r = RunKraken({"profile", "--no-store", "--json", "--interval", "50ms", "--slow-interval", "0", "--samples",
                           "10", "--", "sh",
                           "-c", "sleep 3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::element gpu = doc["gpus"].at(0);
  EXPECT_EQ(int64_t(gpu["mig_gpu_instances"].at(0)), 2);
  EXPECT_TRUE(gpu["tree_sm_util_pct"].is_null());
  EXPECT_TRUE(gpu["device_util_pct"].is_null());
  EXPECT_EQ(Number(gpu["tree_memory_peak_bytes"]), 7847542784);
  EXPECT_EQ(int64_t(gpu["passes_present"]), 5);
  EXPECT_EQ(int64_t(gpu["passes_shared"]), 5);  // 21180 and 21181 share the instance
  EXPECT_FALSE(bool(doc["idle_gaps"]["known"]));
  EXPECT_EQ(std::string_view(doc["periodicity"]["verdict"]), "unknown");
}

TEST(ProfileCliTest, AttachesToARunningProcessTree) {
  pid_t target = fork();
  if (target == 0) {
    execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  UseReplay("h100.nvml", "11345:" + std::to_string(target));
  KrakenRun r = RunKraken({"profile", "--pid", std::to_string(target), "--samples", "10", "--interval", "50ms",
                           "--slow-interval", "0",
                           "--json", "--no-store"});
  kill(target, SIGKILL);
  waitpid(target, nullptr, 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_TRUE(doc["exit_code"].is_null());
  EXPECT_EQ(int64_t(doc["attached_pid"]), target);
  EXPECT_EQ(int64_t(doc["tree_pids"].at(0)), target);
  EXPECT_EQ(Number(doc["gpus"].at(0)["tree_memory_peak_bytes"]), kPid11345Bytes);
  EXPECT_EQ(Number(doc["gpus"].at(0)["tree_sm_util_pct"]["p50"]), 49.5);
  KrakenRun gone = RunKraken({"profile", "--pid", "4194304", "--no-store"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("no such process"), std::string::npos) << gone.err;
}

TEST(ProfileCliTest, SigintStopsForwardsAndStoresWhatWasMeasured) {
  std::string dir = testing::MakeTempDir("profile_sigint");
  std::string db = dir + "/kraken.db";
  UseReplay("h100.nvml", "11345:self/0");
  Background kraken({"profile", "--db", db, "--json", "--interval", "50ms", "--", "sleep", "30"}, dir);
  // Once the command runs, kraken's handlers are installed; then past frame 5 at least once.
  WaitForChild(kraken.pid);
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  kill(kraken.pid, SIGINT);
  ASSERT_EQ(kraken.Wait(), 128 + SIGINT) << kraken.err();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(kraken.out()).get(doc), simdjson::SUCCESS) << kraken.out();
  EXPECT_EQ(std::string_view(doc["stop_reason"]), "a stop signal arrived");
  EXPECT_EQ(int64_t(doc["exit_code"]), 128 + SIGINT);  // sleep got the forwarded SIGINT
  EXPECT_EQ(Number(doc["gpus"].at(0)["tree_memory_peak_bytes"]), kPid11345Bytes);
  int64_t id = int64_t(doc["stored"]["profile_id"]);
  EXPECT_EQ(std::string_view(doc["stored"]["db"]), db);
  // The stored profile holds the GPU's series and the tree's process, not 11327/11328.
  KrakenRun show = RunKraken({"export", std::to_string(id), "--db", db});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  simdjson::dom::parser export_parser;  // a second parser: re-parsing would invalidate `doc`
  simdjson::dom::element exported;
  ASSERT_EQ(export_parser.parse(show.out).get(exported), simdjson::SUCCESS);
  int64_t passes = int64_t(doc["passes"]);
  bool memory_series = false;
  for (simdjson::dom::element s : exported["series"].get_array()) {
    int64_t pid = int64_t(s["entity"]["pid"]);
    EXPECT_TRUE(pid == -1 || pid == int64_t(doc["tree_pids"].at(0))) << pid;
    if (std::string_view(s["metric"]) == "gpu_util_pct") {
      EXPECT_EQ(int64_t(s["samples"].get_array().size()), passes);
    }
    if (std::string_view(s["metric"]) == "process_used_memory_bytes") {
      memory_series = true;
      EXPECT_EQ(Number(s["samples"].at(0).at(1)), kPid11345Bytes);
    }
  }
  EXPECT_TRUE(memory_series);
}

TEST(ProfileCliTest, OutWritesAnExportThatAnalyzeReads) {
  std::string out = testing::MakeTempDir("profile_out") + "/run.json";
  UseReplay("h100.nvml", "11345:self/0");
  KrakenRun r =
      RunKraken({"profile", "--out", out, "--interval", "50ms", "--slow-interval", "0", "--samples", "10", "--", "sh",
                 "-c", "sleep 3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stored:         " + out), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tree SM util p50/p90/p99:   49.5 / 99 / 99 %"), std::string::npos) << r.out;
  KrakenRun analyze = RunKraken({"analyze", "--json", out});
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_NE(analyze.out.find("\"kraken-profile\""), std::string::npos) << analyze.out.substr(0, 2000);
  EXPECT_NE(analyze.out.find("16452157440"), std::string::npos) << analyze.out.substr(0, 4000);
}

TEST(ProfileCliTest, KillNineDuringAProfileLeavesTheStoreReadable) {
  std::string dir = testing::MakeTempDir("profile_kill9");
  std::string db = dir + "/kraken.db";
  UseReplay("h100.nvml", "11345:self/0");
  ASSERT_EQ(RunKraken({"profile", "--db", db, "--samples", "3", "--", "sh", "-c", "sleep 0.5"}).exit_code, 0);
  Background kraken({"profile", "--db", db, "--interval", "10ms", "--", "sleep", "30"}, dir);
  WaitForChild(kraken.pid);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // some passes appended
  std::vector<pid_t> orphans = ChildrenOf(kraken.pid);
  kill(kraken.pid, SIGKILL);
  EXPECT_EQ(kraken.Wait(), -SIGKILL);
  for (pid_t p : orphans) kill(p, SIGKILL);
  KrakenRun list = RunKraken({"list", "--db", db, "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(list.out).get(doc), simdjson::SUCCESS) << list.out;
  EXPECT_EQ(doc["profiles"].get_array().size(), 1u) << list.out;  // the killed run never committed
}

}  // namespace
}  // namespace kraken
