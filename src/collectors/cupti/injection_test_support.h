// What the injection tests share: the library started the way the CUDA driver does it
// (dlopen, then InitializeInjection, then the end of cuInit) in a forked "application",
// and the traces it leaves. For the injection tests (injection_test.cc,
// injection_window_test.cc, injection_detach_test.cc, counters_injection_test.cc).
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::cupti::injection_testing {

struct Injected {
  int exit_code = -1;
  std::string err;
  int64_t init_us = -1;
  int threads_before = -1, threads_after = -1;
  int nvtx_result = -1;
};

inline int ThreadCount() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++count;
  return count;
}

// After starting the tracer: exit, wait to be killed, or make a CUDA call every ms until
// killed (the fake libcupti's kraken_fake_cuda_api_call: what a detach waits for).
enum class Then { kExit, kWaitForSignals, kCallCudaUntilKilled };

// What starting the tracer in a forked "application" gave: its NVTX entry point, how long
// InitializeInjection took, and the process's threads before it and after cuInit finished.
struct TracerInChild {
  int (*initialize_nvtx)(const void* (*)(uint32_t)) = nullptr;
  int64_t init_us = 0;
  int threads_before = 0, threads_after = 0;
};

// In a forked child only: sets `env`, sends stderr to dir/stderr and starts the tracer the
// way the CUDA driver does: dlopen, InitializeInjection `initialize_calls` times (a second
// call must do nothing), then the end of cuInit. Exits 91 when the library does not load,
// 92 when one of its entry points is missing.
inline TracerInChild LoadTracerInChild(const std::map<std::string, std::string>& env, const std::string& dir,
                                       int initialize_calls) {
  for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
  int err = open((dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(err, 2);
  void* library = dlopen(KRAKEN_CUPTI_INJECTION_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) _exit(91);
  auto initialize = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"));
  TracerInChild tracer;
  tracer.initialize_nvtx =
      reinterpret_cast<int (*)(const void* (*)(uint32_t))>(dlsym(library, "InitializeInjectionNvtx2"));
  if (initialize == nullptr || tracer.initialize_nvtx == nullptr) _exit(92);
  tracer.threads_before = ThreadCount();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < initialize_calls; ++i) initialize();
  tracer.init_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
  // The driver finishes cuInit (the fake libcupti's stand-in; the real one has none).
  const char* cupti_path = getenv("KRAKEN_CUPTI_LIBRARY");
  if (void* cupti = cupti_path != nullptr ? dlopen(cupti_path, RTLD_NOW | RTLD_NOLOAD) : nullptr)
    if (auto finished = reinterpret_cast<void (*)()>(dlsym(cupti, "kraken_fake_cuda_init_finished"))) finished();
  tracer.threads_after = ThreadCount();
  return tracer;
}

// Forks an "application" that starts the tracer (LoadTracerInChild, InitializeInjection
// called twice), then calls NVTX's entry point; then it exits 0 normally (running the
// tracer's exit handler) or waits to be killed. Returns its pid.
inline pid_t StartInjected(const std::map<std::string, std::string>& env, const std::string& dir, Then then) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  TracerInChild tracer = LoadTracerInChild(env, dir, 2);
  int nvtx_result = tracer.initialize_nvtx([](uint32_t) -> const void* { return nullptr; });
  FILE* report = fopen((dir + "/report").c_str(), "w");
  fprintf(report, "%lld %d %d %d\n", static_cast<long long>(tracer.init_us), tracer.threads_before,
          tracer.threads_after, nvtx_result);
  fclose(report);
  if (then == Then::kWaitForSignals)
    while (true) pause();
  if (then == Then::kCallCudaUntilKilled) {
    void* cupti = dlopen(getenv("KRAKEN_CUPTI_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    auto call = cupti != nullptr ? reinterpret_cast<void (*)()>(dlsym(cupti, "kraken_fake_cuda_api_call")) : nullptr;
    if (call == nullptr) _exit(93);
    while (true) {
      call();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  exit(0);
}

inline Injected Collect(pid_t pid, const std::string& dir) {
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

inline Injected RunInjected(const std::map<std::string, std::string>& env, const std::string& dir) {
  return Collect(StartInjected(env, dir, Then::kExit), dir);
}

// The tracer's file in `dir`: the one named kraken_cupti_* (its default) or trace_* (the
// KRAKEN_CUPTI_OUTPUT these tests set); "" when there is none.
inline std::string TraceFileIn(const std::string& dir) {
  std::string trace;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.starts_with("kraken_cupti_") || name.starts_with("trace_")) trace = entry.path();
  }
  return trace;
}

// The trace that says why it is empty: the only file in `dir` named kraken_cupti_* or trace_*.
inline Profile ImportErrorTrace(const std::string& dir) {
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

// Waits until the file of `dir` starting with `prefix` has `bytes`; returns its path.
inline std::string WaitForTrace(const std::string& dir, const std::string& prefix, uintmax_t bytes) {
  for (int i = 0; i < 2000; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().filename().string().starts_with(prefix) && entry.file_size() >= bytes) return entry.path();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ADD_FAILURE() << "no " << prefix << " trace of " << bytes << " bytes in " << dir;
  return "";
}

inline std::map<std::string, std::string> EndlessLaunches(const std::string& dir) {
  return {{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
          {"KRAKEN_FAKE_CUPTI_LAUNCHES", "-1"},
          {"KRAKEN_FAKE_CUPTI_PER_FLUSH", "2000"},
          {"KRAKEN_CUPTI_FLUSH_MS", "10"},
          {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}};
}

// The capture-window tests' helpers (injection_window_test.cc, injection_detach_test.cc).

inline int64_t RealtimeNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The fake libcupti's log (KRAKEN_FAKE_CUPTI_LOG): (time, what, detail) per line.
struct FakeCuptiCall {
  int64_t at_ns = 0;
  std::string what;
  int64_t detail = 0;
};

inline std::vector<FakeCuptiCall> ReadFakeCuptiLog(const std::string& path) {
  std::vector<FakeCuptiCall> calls;
  std::ifstream in(path);
  FakeCuptiCall call;
  while (in >> call.at_ns >> call.what >> call.detail) calls.push_back(call);
  return calls;
}

inline bool LogHas(const std::vector<FakeCuptiCall>& calls, const std::string& what) {
  return std::any_of(calls.begin(), calls.end(), [&](const FakeCuptiCall& c) { return c.what == what; });
}

// The last 4 KiB of a file: where a trace's closing members are.
inline std::string FileTail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  in.seekg(std::max<std::streamoff>(0, size - 4096));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Waits until `dir` holds a complete trace (its closing members written) while the process
// runs on; the imported trace, or an empty one after 20 s.
inline Profile WaitForClosedTrace(const std::string& dir) {
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

inline double AttributeNumber(const Profile& p, const std::string& key) {
  auto it = p.metadata.attributes.find(key);
  EXPECT_NE(it, p.metadata.attributes.end()) << key;
  return it == p.metadata.attributes.end() ? -1 : std::stod(it->second);
}

inline std::map<std::string, std::string> WindowedLaunches(const std::string& dir) {
  std::map<std::string, std::string> env = EndlessLaunches(dir);
  env["KRAKEN_FAKE_CUPTI_PER_FLUSH"] = "1000000";
  env["KRAKEN_FAKE_CUPTI_LOG"] = dir + "/cupti.log";
  env["KRAKEN_CUPTI_ACTIVITIES"] = "kernels";  // half the records: 500 kernels per ms
  return env;
}

}  // namespace kraken::cupti::injection_testing
