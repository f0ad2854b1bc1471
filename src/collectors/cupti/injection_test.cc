// libkraken_cupti.so loaded and started the way the CUDA driver does it (dlopen, then
// InitializeInjection) in a child process, on a machine without a GPU or driver: the
// application must go on unharmed, untraced, with one line on stderr saying why.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "analysis/characterize.h"
#include "base/testing/test_data.h"
#include "collectors/cupti/cupti_locator.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

struct Injected {
  int exit_code = -1;
  std::string err;
  int64_t init_us = -1;
  int threads_before = -1, threads_after = -1;
  int nvtx_result = -1;
};

int ThreadCount() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++count;
  return count;
}

enum class Then { kExit, kWaitForSignals };

// Forks an "application" that sets `env`, loads the tracer and calls InitializeInjection
// twice (a second call must do nothing), then NVTX's entry point; then it exits 0 normally
// (running the tracer's exit handler) or waits to be killed. Returns its pid.
pid_t StartInjected(const std::map<std::string, std::string>& env, const std::string& dir, Then then) {
  std::string err_path = dir + "/stderr", report_path = dir + "/report";
  pid_t pid = fork();
  if (pid != 0) return pid;
  for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
  int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(err, 2);
  void* library = dlopen(KRAKEN_CUPTI_INJECTION_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) _exit(91);
  auto initialize = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"));
  auto nvtx = reinterpret_cast<int (*)(const void* (*)(uint32_t))>(dlsym(library, "InitializeInjectionNvtx2"));
  if (initialize == nullptr || nvtx == nullptr) _exit(92);
  int before = ThreadCount();
  auto start = std::chrono::steady_clock::now();
  initialize();
  initialize();
  auto took = std::chrono::steady_clock::now() - start;
  // The driver finishes cuInit (the fake libcupti's stand-in; the real one has none).
  const char* cupti_path = getenv("KRAKEN_CUPTI_LIBRARY");
  if (void* cupti = cupti_path != nullptr ? dlopen(cupti_path, RTLD_NOW | RTLD_NOLOAD) : nullptr)
    if (auto finished = reinterpret_cast<void (*)()>(dlsym(cupti, "kraken_fake_cuda_init_finished"))) finished();
  int after = ThreadCount();
  int nvtx_result = nvtx([](uint32_t) -> const void* { return nullptr; });
  FILE* report = fopen(report_path.c_str(), "w");
  fprintf(report, "%lld %d %d %d\n",
          static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(took).count()), before, after,
          nvtx_result);
  fclose(report);
  if (then == Then::kWaitForSignals)
    while (true) pause();
  exit(0);
}

Injected Collect(pid_t pid, const std::string& dir) {
  Injected r;
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.err = testing::ReadFileOrDie(dir + "/stderr");
  long long init_us = 0;
  if (FILE* report = fopen((dir + "/report").c_str(), "r")) {
    EXPECT_EQ(fscanf(report, "%lld %d %d %d", &init_us, &r.threads_before, &r.threads_after, &r.nvtx_result), 4);
    fclose(report);
  }
  r.init_us = init_us;
  return r;
}

Injected RunInjected(const std::map<std::string, std::string>& env, const std::string& dir) {
  return Collect(StartInjected(env, dir, Then::kExit), dir);
}

// The tracer's file in `dir`: the one named kraken_cupti_* (its default) or trace_* (the
// KRAKEN_CUPTI_OUTPUT these tests set); "" when there is none.
std::string TraceFileIn(const std::string& dir) {
  std::string trace;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with("kraken_cupti_") || name.starts_with("trace_")) trace = entry.path();
  }
  return trace;
}

// The trace that says why it is empty: the only file in `dir` named kraken_cupti_* or trace_*.
Profile ImportErrorTrace(const std::string& dir) {
  std::string trace = TraceFileIn(dir);
  EXPECT_FALSE(trace.empty()) << "no trace in " << dir;
  if (trace.empty()) return Profile();
  auto imported = ImportFile(BuiltinImporters(), trace);
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  if (!imported.ok()) return Profile();
  EXPECT_EQ((*imported)[0].import_counters.count("kineto_trace_cut"), 0u);
  EXPECT_TRUE((*imported)[0].kernels.empty());
  return std::move((*imported)[0]);
}

TEST(InjectionTest, WithoutLibcuptiTheApplicationRunsUntracedWithOneLine) {
  std::string dir = testing::MakeTempDir("injection_nolib");
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", "/nonexistent/libcupti.so.12"},
                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("kraken-cupti: no kernel trace: KRAKEN_CUPTI_LIBRARY=/nonexistent/libcupti.so.12 could "
                        "not be loaded (/nonexistent/libcupti.so.12: cannot open shared object file",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("records why)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_EQ(r.threads_after, r.threads_before);
  EXPECT_LT(r.init_us, 500'000);
  EXPECT_EQ(r.nvtx_result, 0);  // NVTX stays a no-op without libcupti
  Profile trace = ImportErrorTrace(dir);
  EXPECT_NE(trace.metadata.attributes["kraken_cupti_error"].find("could not be loaded"), std::string::npos);
}

// The toolkit's real libcupti, as the tracer would find it here (CI and the build machines
// have CUDA under /usr/local/cuda but no driver).
std::string RealLibcupti() {
  for (const CuptiCandidate& c : CuptiCandidates(ProcessEnvironment()))
    if (c.path.find('/') != std::string::npos) return c.path;
  return "";
}

TEST(InjectionTest, WithoutDriverTheTraceSaysNoCudaDeviceAndTheApplicationRuns) {
  std::string libcupti = RealLibcupti();
  if (libcupti.empty()) GTEST_SKIP() << "no libcupti on this machine (the CUPTI headers came without it)";
  std::string dir = testing::MakeTempDir("injection_nodriver");
  Injected r = RunInjected(
      {{"KRAKEN_CUPTI_LIBRARY", libcupti}, {"KRAKEN_CUPTI_OUTPUT", dir + "/"}, {"KRAKEN_CUPTI_NVTX", "0"}}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("kraken-cupti: no kernel trace: CUPTI cannot record kernels: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_EQ(r.threads_after, r.threads_before);  // the writer thread was stopped again
  EXPECT_LT(r.init_us, 2'000'000);
  EXPECT_EQ(r.nvtx_result, 0);  // KRAKEN_CUPTI_NVTX=0: NVTX is not handed to libcupti
  // The trace records why it is empty.
  Profile trace = ImportErrorTrace(dir);
  EXPECT_NE(trace.metadata.attributes["kraken_cupti_error"].find("no CUDA driver"), std::string::npos);
}

// The fake libcupti (fake_cupti.cc) delivers made-up launches through the real protocol:
// the whole path from InitializeInjection to the closed trace at exit.
TEST(InjectionTest, EveryLaunchTheLibraryDeliversIsInTheTrace) {
  std::string dir = testing::MakeTempDir("injection_fake");
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "5000"},
                            {"KRAKEN_FAKE_CUPTI_PER_FLUSH", "5000"},
                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("kraken-cupti: recording the CUDA activity of pid ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_EQ(r.threads_after, r.threads_before + 1);  // the writer
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  ASSERT_EQ(p.kernels.size(), 5000u);
  ASSERT_EQ(p.runtime_calls.size(), 5000u);  // cudaLaunchKernel enabled by id
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    ASSERT_EQ(p.kernels[i].duration_ns, 1000) << i;
    ASSERT_EQ(p.kernels[i].start_ns - p.kernels[0].start_ns, static_cast<int64_t>(i) * 2000) << i;
    ASSERT_EQ(p.runtime_calls[i].correlation_id, p.kernels[i].correlation_id) << i;
    ASSERT_EQ(p.kernels[i].start_ns - p.runtime_calls[i].end_ns(), 500) << i;  // the launch delay
  }
  EXPECT_EQ(p.Name(p.kernels[0].name), "fake_kernel(float*, int)");
  EXPECT_EQ(p.Name(p.runtime_calls[0].name), "cudaLaunchKernel");
  EXPECT_EQ(p.kernels[0].blocks_per_sm, 2);  // 264 blocks on 132 SMs
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].sm_count, 132);
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  // Unix time: the trace's clock is the NVML samples' clock.
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LT(std::abs(p.metadata.base_time_ns + p.kernels[0].start_ns - now_ns), int64_t{60'000'000'000});
}

TEST(InjectionTest, ActivitiesKernelsRecordsKernelsOnlyAndTheTraceSaysSo) {
  std::string dir = testing::MakeTempDir("injection_kernels_only");
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "300"},
                            {"KRAKEN_CUPTI_ACTIVITIES", "kernels"},
                            {"KRAKEN_CUPTI_QUIET", "1"},
                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  EXPECT_EQ(p.kernels.size(), 300u);
  EXPECT_TRUE(p.runtime_calls.empty());  // no cudaLaunchKernel records: API recording is off
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_activities"), "kernels");
}

TEST(InjectionTest, ABadActivitiesValueIsOneLineAndTheDefaultIsTraced) {
  std::string dir = testing::MakeTempDir("injection_bad_activities");
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "10"},
                            {"KRAKEN_CUPTI_ACTIVITIES", "kernels,cache"},
                            {"KRAKEN_CUPTI_QUIET", "1"},
                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "kraken-cupti: KRAKEN_CUPTI_ACTIVITIES=kernels,cache: 'cache' is not one of kernels, memcpy, "
                   "memset, sync, nvtx, marker, api; using kernels,memcpy,memset,sync,nvtx,api\n");
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ((*imported)[0].runtime_calls.size(), 10u);
}

// Waits until the file of `dir` starting with `prefix` has `bytes`; returns its path.
std::string WaitForTrace(const std::string& dir, const std::string& prefix, uintmax_t bytes) {
  for (int i = 0; i < 2000; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().filename().string().starts_with(prefix) && entry.file_size() >= bytes) return entry.path();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ADD_FAILURE() << "no " << prefix << " trace of " << bytes << " bytes in " << dir;
  return "";
}

std::map<std::string, std::string> EndlessLaunches(const std::string& dir) {
  return {{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
          {"KRAKEN_FAKE_CUPTI_LAUNCHES", "-1"},
          {"KRAKEN_FAKE_CUPTI_PER_FLUSH", "2000"},
          {"KRAKEN_CUPTI_FLUSH_MS", "10"},
          {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}};
}

TEST(InjectionTest, KillNineOfATracedProcessLeavesAReadablePrefix) {
  std::string dir = testing::MakeTempDir("injection_kill9");
  pid_t pid = StartInjected(EndlessLaunches(dir), dir, Then::kWaitForSignals);
  std::string trace = WaitForTrace(dir, "trace_", 1 << 20);
  kill(pid, SIGKILL);
  Injected r = Collect(pid, dir);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  auto imported = ImportFile(BuiltinImporters(), trace);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  EXPECT_GE(p.kernels.size(), 1000u);  // 1 MiB of trace holds ~1500 launches
  for (const Kernel& k : p.kernels) ASSERT_EQ(k.duration_ns, 1000);
  EXPECT_EQ(p.import_counters.at("kineto_trace_cut"), 1);
}

TEST(InjectionTest, SigtermClosesTheTraceAndTheProcessStillDiesOfIt) {
  std::string dir = testing::MakeTempDir("injection_sigterm");
  pid_t pid = StartInjected(EndlessLaunches(dir), dir, Then::kWaitForSignals);
  std::string trace = WaitForTrace(dir, "trace_", 1 << 20);
  kill(pid, SIGTERM);
  Injected r = Collect(pid, dir);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  auto imported = ImportFile(BuiltinImporters(), trace);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_kernels"), std::to_string(p.kernels.size()));
  EXPECT_GE(p.kernels.size(), 1000u);  // 1 MiB of trace holds ~1500 launches
}

}  // namespace
}  // namespace kraken::cupti

namespace kraken::cupti {
namespace {

int64_t RealtimeNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The fake libcupti's log (KRAKEN_FAKE_CUPTI_LOG): (time, what, detail) per line.
struct FakeCuptiCall {
  int64_t at_ns = 0;
  std::string what;
  int64_t detail = 0;
};

std::vector<FakeCuptiCall> ReadFakeCuptiLog(const std::string& path) {
  std::vector<FakeCuptiCall> calls;
  std::ifstream in(path);
  FakeCuptiCall call;
  while (in >> call.at_ns >> call.what >> call.detail) calls.push_back(call);
  return calls;
}

bool LogHas(const std::vector<FakeCuptiCall>& calls, const std::string& what) {
  return std::any_of(calls.begin(), calls.end(), [&](const FakeCuptiCall& c) { return c.what == what; });
}

// The last 4 KiB of a file: where a trace's closing members are.
std::string FileTail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  in.seekg(std::max<std::streamoff>(0, size - 4096));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Waits until `dir` holds a complete trace (its closing members written) while the process
// runs on; the imported trace, or an empty one after 20 s.
Profile WaitForClosedTrace(const std::string& dir) {
  for (int i = 0; i < 2000; ++i) {
    std::string trace = TraceFileIn(dir);
    if (!trace.empty() && FileTail(trace).find("\"kraken_cupti_kernels\"") != std::string::npos) {
      auto imported = ImportFile(BuiltinImporters(), trace);
      EXPECT_TRUE(imported.ok()) << imported.status().message();
      if (imported.ok()) return std::move((*imported)[0]);
      return Profile();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "no closed trace in " << dir;
  return Profile();
}

double AttributeNumber(const Profile& p, const std::string& key) {
  auto it = p.metadata.attributes.find(key);
  EXPECT_NE(it, p.metadata.attributes.end()) << key;
  return it == p.metadata.attributes.end() ? -1 : std::stod(it->second);
}

std::map<std::string, std::string> WindowedLaunches(const std::string& dir) {
  std::map<std::string, std::string> env = EndlessLaunches(dir);
  env["KRAKEN_FAKE_CUPTI_PER_FLUSH"] = "1000000";
  env["KRAKEN_FAKE_CUPTI_LOG"] = dir + "/cupti.log";
  env["KRAKEN_CUPTI_ACTIVITIES"] = "kernels";  // half the records: 500 kernels per ms
  return env;
}

TEST(InjectionWindowTest, DelayedWindowRecordsOnlyItsLaunchesAndClosesWhileTheProcessRuns) {
  std::string dir = testing::MakeTempDir("injection_window");
  std::map<std::string, std::string> env = WindowedLaunches(dir);
  env["KRAKEN_CUPTI_DELAY_MS"] = "300";
  env["KRAKEN_CUPTI_DURATION_MS"] = "100";
  const int64_t forked_ns = RealtimeNowNs();
  pid_t pid = StartInjected(env, dir, Then::kWaitForSignals);
  Profile p = WaitForClosedTrace(dir);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the traced process should still run";
  std::vector<FakeCuptiCall> calls = ReadFakeCuptiLog(dir + "/cupti.log");
  kill(pid, SIGTERM);
  Injected r = Collect(pid, dir);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;

  // Nothing was enabled before the window: the tracer cost nothing then.
  ASSERT_TRUE(LogHas(calls, "enable"));
  for (const FakeCuptiCall& call : calls) {
    if (call.what.starts_with("enable")) {
      EXPECT_GE(call.at_ns - forked_ns, 300'000'000) << call.what << call.detail;
    }
  }
  EXPECT_TRUE(LogHas(calls, "enable_and_dump"));  // the device record made while CUDA started
  EXPECT_TRUE(LogHas(calls, "disable"));
  // The launches of the first 300 ms (one every 2 us) were never recorded.
  ASSERT_GT(p.kernels.size(), 1000u);
  EXPECT_GT(p.kernels.front().correlation_id, 150'000);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_window_delay_ms"), "300");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_window_duration_ms"), "100");
  const double requested_start = AttributeNumber(p, "kraken_cupti_window_requested_start_us");
  const double requested_end = AttributeNumber(p, "kraken_cupti_window_requested_end_us");
  const double start = AttributeNumber(p, "kraken_cupti_window_start_us");
  const double end = AttributeNumber(p, "kraken_cupti_window_end_us");
  EXPECT_NEAR(requested_end - requested_start, 100'000, 1);
  EXPECT_GE(start, requested_start);
  EXPECT_LT(start - requested_start, 100'000);
  EXPECT_GE(end - start, 100'000);
  EXPECT_LT(end - start, 300'000);
  // Every launch of the window, those after the last periodic flush included (one per 2 us).
  EXPECT_NEAR(static_cast<double>(p.kernels.size()), (end - start) / 2, (end - start) / 2 * 0.05);
  for (const Kernel& k : p.kernels) {
    ASSERT_GE(static_cast<double>(k.start_ns) / 1e3, start);
    ASSERT_LE(static_cast<double>(k.start_ns) / 1e3, end);
  }
  EXPECT_EQ(p.devices.size(), 1u);  // deviceProperties, though the device was made before the window
  // The trace stays as it was closed: the SIGTERM later added nothing.
  auto again = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ((*again)[0].kernels.size(), p.kernels.size());
  // kraken analyze measures the window, not the time before it: 1 us kernels every 2 us.
  WorkloadReport report = CharacterizeWorkload(p);
  EXPECT_GE(static_cast<double>(report.timeline.trace.window.start_ns) / 1e3, start);
  EXPECT_NEAR(report.timeline.trace.idle_pct(), 50, 5);
}

TEST(InjectionWindowTest, DurationAloneRecordsFromTheStartAndClosesTheTrace) {
  std::string dir = testing::MakeTempDir("injection_duration");
  std::map<std::string, std::string> env = WindowedLaunches(dir);
  env["KRAKEN_CUPTI_DURATION_MS"] = "100";
  pid_t pid = StartInjected(env, dir, Then::kWaitForSignals);
  Profile p = WaitForClosedTrace(dir);
  kill(pid, SIGKILL);
  Collect(pid, dir);
  ASSERT_GT(p.kernels.size(), 1000u);
  EXPECT_LT(p.kernels.front().correlation_id, 10'000);  // recorded from the start
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  const double start = AttributeNumber(p, "kraken_cupti_window_start_us");
  EXPECT_NEAR(start, AttributeNumber(p, "kraken_cupti_window_requested_start_us"), 1000);
  EXPECT_GE(AttributeNumber(p, "kraken_cupti_window_end_us") - start, 100'000);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_window_delay_ms"), "0");
}

TEST(InjectionWindowTest, AProcessEndingBeforeTheWindowHasAnEmptyCompleteTrace) {
  std::string dir = testing::MakeTempDir("injection_window_late");
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "100"},
                            {"KRAKEN_FAKE_CUPTI_LOG", dir + "/cupti.log"},
                            {"KRAKEN_CUPTI_DELAY_MS", "60000"},
                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("kraken-cupti: will record the CUDA activity of pid ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" from 60000 ms after the start into "), std::string::npos) << r.err;
  EXPECT_LT(r.init_us, 500'000);
  for (const FakeCuptiCall& call : ReadFakeCuptiLog(dir + "/cupti.log")) {
    EXPECT_FALSE(call.what.starts_with("enable")) << call.what << " " << call.detail;
  }
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  EXPECT_EQ(p.metadata.attributes.count("kraken_cupti_window_start_us"), 0u);
  EXPECT_NE(p.metadata.attributes.at("kraken_cupti_window").find("not started"), std::string::npos);
}

TEST(InjectionWindowTest, ABadWindowValueIsOneLineAndTheWholeRunIsTraced) {
  std::string dir = testing::MakeTempDir("injection_bad_window");
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "50"},
                            {"KRAKEN_CUPTI_DELAY_MS", "5s"},
                            {"KRAKEN_CUPTI_QUIET", "1"},
                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "kraken-cupti: KRAKEN_CUPTI_DELAY_MS=5s is not a whole number from 0 to 604800000; using 0\n");
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ((*imported)[0].kernels.size(), 50u);
  EXPECT_EQ((*imported)[0].metadata.attributes.count("kraken_cupti_window_delay_ms"), 0u);
}

// Runs 50 launches with the fake's HW trace answer `fake_answer` and KRAKEN_CUPTI_HW_TRACE
// `setting` (nullptr: unset); waits until the subscription ended when one was made.
Profile TraceWithHardwareTimestamps(const std::string& dir, const char* fake_answer, const char* setting,
                                    std::vector<FakeCuptiCall>* calls, std::string* err) {
  std::map<std::string, std::string> env = {{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "50"},
                                            {"KRAKEN_FAKE_CUPTI_HW_TRACE", fake_answer},
                                            {"KRAKEN_FAKE_CUPTI_LOG", dir + "/cupti.log"},
                                            {"KRAKEN_CUPTI_QUIET", "1"},
                                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}};
  if (setting != nullptr) env["KRAKEN_CUPTI_HW_TRACE"] = setting;
  pid_t pid = StartInjected(env, dir, Then::kWaitForSignals);
  // The writer ends the subscription on its next pass (50 ms) after cuInit finished.
  for (int i = 0; i < 300; ++i) {
    *calls = ReadFakeCuptiLog(dir + "/cupti.log");
    if (LogHas(*calls, "unsubscribe") || (LogHas(*calls, "enable") && !LogHas(*calls, "subscribe") && i > 20)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGTERM);
  Injected r = Collect(pid, dir);
  *err = r.err;
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  return imported.ok() ? std::move((*imported)[0]) : Profile();
}

TEST(InjectionWindowTest, HardwareTimestampsWhereCuptiHasThem) {
  std::string dir = testing::MakeTempDir("injection_hw");
  std::vector<FakeCuptiCall> calls;
  std::string err;
  Profile p = TraceWithHardwareTimestamps(dir, "supported", nullptr, &calls, &err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_timestamps"), "hw");
  EXPECT_EQ(p.kernels.size(), 50u);
  // Switched on when cuInit finished (not before: NOT_INITIALIZED), then the subscription ended.
  std::vector<std::string> order;
  for (const FakeCuptiCall& call : calls)
    if (call.what == "subscribe" || call.what == "hw_trace_on" || call.what == "unsubscribe") {
      order.push_back(call.what);
      if (call.what == "hw_trace_on") {
        EXPECT_EQ(call.detail, CUPTI_SUCCESS);
      }
    }
  EXPECT_EQ(order, (std::vector<std::string>{"subscribe", "hw_trace_on", "unsubscribe"}));
}

TEST(InjectionWindowTest, WithoutHardwareTimestampsKernelsAreTimedAsBeforeSilently) {
  std::string dir = testing::MakeTempDir("injection_hw_unsupported");
  std::vector<FakeCuptiCall> calls;
  std::string err;
  Profile p = TraceWithHardwareTimestamps(dir, "unsupported", nullptr, &calls, &err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_timestamps"), "sw");
  EXPECT_EQ(p.metadata.attributes.count("kraken_cupti_hw_trace"), 0u);  // NOT_SUPPORTED: nothing to say
  EXPECT_EQ(p.kernels.size(), 50u);
  EXPECT_TRUE(LogHas(calls, "hw_trace_on"));
  EXPECT_TRUE(LogHas(calls, "unsubscribe"));
}

TEST(InjectionWindowTest, HwTraceZeroNeverAsksForHardwareTimestamps) {
  std::string dir = testing::MakeTempDir("injection_hw_off");
  std::vector<FakeCuptiCall> calls;
  std::string err;
  Profile p = TraceWithHardwareTimestamps(dir, "supported", "0", &calls, &err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_timestamps"), "sw");
  EXPECT_FALSE(LogHas(calls, "subscribe"));
  EXPECT_FALSE(LogHas(calls, "hw_trace_on"));
  EXPECT_EQ(p.kernels.size(), 50u);
}

}  // namespace
}  // namespace kraken::cupti
