// CUPTI attached for the capture window only (cupti_detach.h, KRAKEN_CUPTI_DETACH), end to
// end with the fake libcupti, which logs CUPTI's attachment as libcupti behaves: "attach" at
// the first call of any function, "finalize" at cuptiFinalize, "attach" again at a call after
// it. The "application" makes a CUDA call every ms (Then::kCallCudaUntilKilled), the call at
// whose exit the tracer may detach CUPTI.
#include <cupti.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include "collectors/cupti/injection_test_support.h"

namespace kraken::cupti {
namespace {

using namespace injection_testing;  // NOLINT: the shared helpers

// Waits up to 10 s for a line `what` in the fake's log; the log as it then is.
std::vector<FakeCuptiCall> WaitForLogLine(const std::string& log, const std::string& what) {
  std::vector<FakeCuptiCall> calls;
  for (int i = 0; i < 1000; ++i) {
    calls = ReadFakeCuptiLog(log);
    if (LogHas(calls, what)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return calls;
}

int64_t CountOf(const std::vector<FakeCuptiCall>& calls, const std::string& what) {
  return std::count_if(calls.begin(), calls.end(), [&](const FakeCuptiCall& c) { return c.what == what; });
}

int64_t FirstAt(const std::vector<FakeCuptiCall>& calls, const std::string& what) {
  for (const FakeCuptiCall& call : calls)
    if (call.what == what) return call.at_ns;
  return -1;
}

TEST(InjectionDetachTest, CuptiIsAttachedForTheWindowOnly) {
  std::string dir = testing::MakeTempDir("injection_detach");
  std::map<std::string, std::string> env = WindowedLaunches(dir);
  env["KRAKEN_CUPTI_DELAY_MS"] = "200";
  env["KRAKEN_CUPTI_DURATION_MS"] = "100";
  const int64_t forked_ns = RealtimeNowNs();
  pid_t pid = StartInjected(env, dir, Then::kCallCudaUntilKilled);
  Profile p = WaitForClosedTrace(dir);
  std::vector<FakeCuptiCall> calls = WaitForLogLine(dir + "/cupti.log", "finalize");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // CUDA calls go on after the detach
  calls = ReadFakeCuptiLog(dir + "/cupti.log");
  kill(pid, SIGTERM);
  Injected r = Collect(pid, dir);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;

  // Attached once, at the window's start; detached once, after the window's last CUPTI call
  // (its kinds off), and not attached again by the CUDA calls or the SIGTERM that followed.
  ASSERT_EQ(CountOf(calls, "attach"), 1) << r.err;
  ASSERT_EQ(CountOf(calls, "finalize"), 1) << r.err;
  EXPECT_GE(FirstAt(calls, "attach") - forked_ns, 200'000'000);
  EXPECT_EQ(calls.back().what, "finalize");
  EXPECT_LT(FirstAt(calls, "disable"), FirstAt(calls, "finalize"));
  EXPECT_LT(FirstAt(calls, "domain_on_runtime"), FirstAt(calls, "finalize"));
  EXPECT_NE(r.err.find("kraken-cupti: CUPTI detached from pid " + std::to_string(pid) +
                       ": the process runs on untraced\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("CUPTI stays attached"), std::string::npos) << r.err;

  // The trace of the window is whole, and says how CUPTI was attached.
  ASSERT_GT(p.kernels.size(), 1000u);
  EXPECT_EQ(p.kernels.back().correlation_id - p.kernels.front().correlation_id + 1, p.kernels.size());
  EXPECT_GT(p.kernels.front().correlation_id, 100'000);  // the first 200 ms were not recorded
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_attach"), "when the capture window opened");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_detach"), "at the application's next CUDA call after the window");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_zeroed_buffers"), "true");
  const double start = AttributeNumber(p, "kraken_cupti_window_start_us");
  EXPECT_GE(start, AttributeNumber(p, "kraken_cupti_window_requested_start_us"));
  for (const Kernel& k : p.kernels) ASSERT_GE(static_cast<double>(k.start_ns) / 1e3, start);
  // Deferred, the hardware-timestamp switch (only in cuInit) was not tried, and it says so.
  EXPECT_NE(p.metadata.attributes.at("kraken_cupti_hw_trace_result").find("not asked: CUPTI was attached when"),
            std::string::npos);
}

TEST(InjectionDetachTest, DetachZeroKeepsCuptiAttachedFromCudasStart) {
  std::string dir = testing::MakeTempDir("injection_no_detach");
  std::map<std::string, std::string> env = WindowedLaunches(dir);
  env["KRAKEN_CUPTI_DELAY_MS"] = "200";
  env["KRAKEN_CUPTI_DURATION_MS"] = "50";
  env["KRAKEN_CUPTI_DETACH"] = "0";
  const int64_t forked_ns = RealtimeNowNs();
  pid_t pid = StartInjected(env, dir, Then::kCallCudaUntilKilled);
  Profile p = WaitForClosedTrace(dir);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::vector<FakeCuptiCall> calls = ReadFakeCuptiLog(dir + "/cupti.log");
  kill(pid, SIGTERM);
  Injected r = Collect(pid, dir);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  ASSERT_EQ(CountOf(calls, "attach"), 1);
  EXPECT_LT(FirstAt(calls, "attach") - forked_ns, 200'000'000);  // in cuInit, as before
  EXPECT_EQ(CountOf(calls, "finalize"), 0);
  EXPECT_FALSE(LogHas(calls, "domain_on_runtime"));
  EXPECT_EQ(r.err.find("CUPTI detached"), std::string::npos) << r.err;
  ASSERT_GT(p.kernels.size(), 1000u);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_attach"), "at CUDA's start");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_detach"), "off (KRAKEN_CUPTI_DETACH=0)");
}

TEST(InjectionDetachTest, AWindowFromTheStartIsDetachedAfterItsEnd) {
  std::string dir = testing::MakeTempDir("injection_detach_duration");
  std::map<std::string, std::string> env = WindowedLaunches(dir);
  env["KRAKEN_CUPTI_DURATION_MS"] = "50";
  env["KRAKEN_CUPTI_QUIET"] = "1";
  pid_t pid = StartInjected(env, dir, Then::kCallCudaUntilKilled);
  Profile p = WaitForClosedTrace(dir);
  std::vector<FakeCuptiCall> calls = WaitForLogLine(dir + "/cupti.log", "finalize");
  kill(pid, SIGKILL);
  Injected r = Collect(pid, dir);
  EXPECT_EQ(r.err, "");  // quiet: the detach says nothing either
  EXPECT_EQ(CountOf(calls, "attach"), 1);
  EXPECT_EQ(CountOf(calls, "finalize"), 1);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_attach"), "at CUDA's start");
  // Recorded from the start (the fake counts launches from its load, as in the window tests).
  EXPECT_NEAR(static_cast<double>(p.kernels.front().start_ns) / 1e3, AttributeNumber(p, "kraken_cupti_window_start_us"),
              50'000);
}

TEST(InjectionDetachTest, ATraceClosedByTheExitNeedsNoDetach) {
  std::string dir = testing::MakeTempDir("injection_detach_exit");
  Injected r = RunInjected({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "100"},
                            {"KRAKEN_FAKE_CUPTI_LOG", dir + "/cupti.log"},
                            {"KRAKEN_CUPTI_QUIET", "1"},
                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}},
                           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(LogHas(ReadFakeCuptiLog(dir + "/cupti.log"), "finalize"));
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ((*imported)[0].kernels.size(), 100u);
  EXPECT_EQ((*imported)[0].metadata.attributes.at("kraken_cupti_detach"),
            "not needed: the trace closed with the process");
}

}  // namespace
}  // namespace kraken::cupti
