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
#include <filesystem>
#include <map>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "collectors/cupti/cupti_locator.h"
#include "collectors/cupti/injection_test_support.h"
#include "importers/registry.h"

namespace {
// Read by LeakSanitizer before its check at exit (a hook of sanitizer/lsan_interface.h; no
// effect in a build without it). Set only while the application that loads the toolkit's
// real libcupti is forked: there, LSan's own thread-suspending tracer crashed once in a CI
// run ("Tracer caught signal 11: addr=0x600", exit 134, then 0 in 260 reruns), with that
// library's threads about. The tracer's code still runs under the leak check in every other
// injection test (the fake libcupti), and the parent process keeps it here.
bool real_libcupti_child = false;
}  // namespace
extern "C" int __lsan_is_turned_off() { return real_libcupti_child ? 1 : 0; }

namespace kraken::cupti {
namespace {

using namespace injection_testing;  // NOLINT: the shared helpers

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
  real_libcupti_child = true;  // copied into the forked application only
  Injected r = RunInjected(
      {{"KRAKEN_CUPTI_LIBRARY", libcupti}, {"KRAKEN_CUPTI_OUTPUT", dir + "/"}, {"KRAKEN_CUPTI_NVTX", "0"}}, dir);
  real_libcupti_child = false;
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
  // CUPTI was told its buffers come zeroed (and the fake found them so: no line about it).
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_zeroed_buffers"), "true");
  // Unix time: the trace's clock is the NVML samples' clock.
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LT(std::abs(p.metadata.base_time_ns + p.kernels[0].start_ns - now_ns), int64_t{60'000'000'000});
  // CLOCK_REALTIME minus CUPTI's clock at the start and at the close (the fake's clock is
  // CLOCK_REALTIME: microseconds apart at most, here).
  for (const char* key : {"kraken_cupti_clock_offset_ns_at_start", "kraken_cupti_clock_offset_ns_at_end"})
    EXPECT_LT(std::abs(std::stoll(p.metadata.attributes.at(key))), int64_t{50'000'000}) << key;
}

// A folder output that does not exist yet is made: on the H100 a missing folder once left
// every traced process of a validation run untraced.
TEST(InjectionTest, AMissingOutputFolderIsCreated) {
  std::string dir = testing::MakeTempDir("injection_new_folder");
  std::string output = dir + "/runs/round-1/";
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "100"},
                            {"KRAKEN_CUPTI_OUTPUT", output}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("kraken-cupti: recording the CUDA activity of pid ", 0), 0u) << r.err;
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(output));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ((*imported)[0].kernels.size(), 100u);
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
                   "memset, sync, nvtx, marker, api, memory, all; using kernels,memcpy,memset,nvtx,api,memory\n");
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ((*imported)[0].runtime_calls.size(), 10u);
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
