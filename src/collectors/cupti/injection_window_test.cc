// The injected tracer's capture window (KRAKEN_CUPTI_DELAY_MS, KRAKEN_CUPTI_DURATION_MS)
// and Blackwell's hardware timestamps (KRAKEN_CUPTI_HW_TRACE), end to end with the fake
// libcupti: what is enabled when (the fake's call log), what the trace holds and says,
// and what `kraken analyze` makes of a windowed trace.
#include <cupti.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include "analysis/characterize.h"
#include "base/testing/built_files.h"
#include "collectors/cupti/injection_test_support.h"

namespace kraken::cupti {
namespace {

using namespace injection_testing;  // NOLINT: the shared helpers

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
  // The start line, then when the trace is complete.
  EXPECT_NE(r.err.find(" from 300 ms after the start for 100 ms into "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kraken-cupti: the capture window ended: " + TraceFileIn(dir) + " is complete (" +
                       std::to_string(p.kernels.size()) + " kernels)\n"),
            std::string::npos)
      << r.err;

  // No CUPTI function ran before the window (CUPTI attaches at its first call): the tracer
  // cost nothing then.
  ASSERT_TRUE(LogHas(calls, "enable"));
  ASSERT_TRUE(LogHas(calls, "attach"));
  for (const FakeCuptiCall& call : calls) {
    if (call.what.starts_with("enable") || call.what == "attach") {
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
  EXPECT_GE(end - start, 100'000);
  // Begun at the delay and ended by the duration: the writer's wake-ups may be late on a busy
  // machine (313 ms for the 100 ms window once under ASan beside a build), so only bounds
  // that no ordinary lateness reaches and a missed deadline would.
  EXPECT_LT(start - requested_start, 2'000'000);
  EXPECT_LT(end - start, 2'000'000);
  // Every launch of the window: the fake library numbers launches one by one, so the trace
  // holds a run of correlation ids without a gap. How many launches the window saw depends on
  // the scheduler (one per 2 us while the app runs: 6 % fewer once under ASan in CI's ctest
  // -j2), so the rate is only bounded from below, where losing a flush would end up.
  EXPECT_EQ(p.kernels.back().correlation_id - p.kernels.front().correlation_id + 1, p.kernels.size());
  EXPECT_GT(static_cast<double>(p.kernels.size()), (end - start) / 2 * 0.5);
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
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  const double start = AttributeNumber(p, "kraken_cupti_window_start_us");
  // Recorded from the start: from the first launch after the kinds went on, which is before
  // the window's clock starts (8 ms before under the sanitizers, once).
  EXPECT_NEAR(static_cast<double>(p.kernels.front().start_ns) / 1e3, start, 50'000);
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
  // Not one CUPTI call: CUPTI never attached to the process.
  for (const FakeCuptiCall& call : ReadFakeCuptiLog(dir + "/cupti.log")) {
    EXPECT_FALSE(call.what.starts_with("enable") || call.what == "attach") << call.what << " " << call.detail;
  }
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  EXPECT_EQ(p.metadata.attributes.count("kraken_cupti_window_start_us"), 0u);
  EXPECT_NE(p.metadata.attributes.at("kraken_cupti_window").find("not started"), std::string::npos);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_attach"), "never: the capture window did not open");
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

// NVTX's side of the injection ABI for one NVTX instance (nvtx3/nvtxDetail: the export
// table NVTX_ETID_CALLBACKS = 1 hands out per-module tables of pointers to NVTX's function
// pointers; CORE = 1, CORE2 = 5). Its function pointers start at a stub, as NVTX's
// initialization functions; whatever the injection installs is called through them.
using NvtxStandInFunction = void (*)();
int NvtxStandInStub(const char*) { return -1; }
NvtxStandInFunction g_nvtx_stand_in_core[17];   // NVTX_CBID_CORE_SIZE + 1
NvtxStandInFunction g_nvtx_stand_in_core2[31];  // the CORE2 module
NvtxStandInFunction* g_nvtx_stand_in_core_slots[17];
NvtxStandInFunction* g_nvtx_stand_in_core2_slots[31];
struct NvtxStandInCallbacks {
  size_t struct_size;
  int (*GetModuleFunctionTable)(int module, NvtxStandInFunction*** out_table, unsigned int* out_size);
};
int NvtxStandInGetModuleFunctionTable(int module, NvtxStandInFunction*** out_table, unsigned int* out_size) {
  if (module != 1 && module != 5) return 0;
  *out_table = module == 1 ? g_nvtx_stand_in_core_slots : g_nvtx_stand_in_core2_slots;
  *out_size = module == 1 ? 16 : 30;
  return 1;
}
const NvtxStandInCallbacks g_nvtx_stand_in_callbacks = {sizeof(NvtxStandInCallbacks),
                                                         NvtxStandInGetModuleFunctionTable};
const void* NvtxStandInExportTable(uint32_t id) { return id == 1 ? &g_nvtx_stand_in_callbacks : nullptr; }

// A traced "application" that uses NVTX: the tracer started as the driver does
// (LoadTracerInChild, InitializeInjection called once), then NVTX's
// initialization through the tracer, then nvtxRangePushA("warmup"), 150 ms later
// nvtxRangePushA("ProfilerStep#3") (through whatever the function table then holds), and
// it runs on until killed.
pid_t StartInjectedWithNvtx(const std::map<std::string, std::string>& env, const std::string& dir) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  TracerInChild tracer = LoadTracerInChild(env, dir, 1);
  for (int i = 0; i < 17; ++i) {
    g_nvtx_stand_in_core[i] = reinterpret_cast<NvtxStandInFunction>(NvtxStandInStub);
    g_nvtx_stand_in_core_slots[i] = &g_nvtx_stand_in_core[i];
  }
  for (int i = 0; i < 31; ++i) {
    g_nvtx_stand_in_core2[i] = reinterpret_cast<NvtxStandInFunction>(NvtxStandInStub);
    g_nvtx_stand_in_core2_slots[i] = &g_nvtx_stand_in_core2[i];
  }
  if (tracer.initialize_nvtx(NvtxStandInExportTable) != 1) _exit(93);
  auto push = [](const char* name) { return reinterpret_cast<int (*)(const char*)>(g_nvtx_stand_in_core[9])(name); };
  push("warmup");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  push("ProfilerStep#3");
  push("ProfilerStep#3");  // a second push of the name: the window started already
  while (true) pause();
}

TEST(InjectionWindowTest, TheWindowStartsAtTheFirstPushOfTheNvtxRange) {
  std::string dir = testing::MakeTempDir("injection_window_nvtx");
  std::map<std::string, std::string> env = WindowedLaunches(dir);
  env["KRAKEN_CUPTI_START_ON_NVTX"] = "ProfilerStep#3";
  env["KRAKEN_CUPTI_ACTIVITIES"] = "kernels,nvtx";  // the range start needs NVTX forwarded
  env["KRAKEN_CUPTI_DURATION_MS"] = "50";
  pid_t pid = StartInjectedWithNvtx(env, dir);
  Profile p = WaitForClosedTrace(dir);
  std::vector<FakeCuptiCall> calls = ReadFakeCuptiLog(dir + "/cupti.log");
  kill(pid, SIGKILL);
  Injected r = Collect(pid, dir);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  // Nothing was enabled at "warmup"; at the matching push the kinds went on, libcupti
  // installed its NVTX handlers (late, as libcupti 13 does) into what the tracer handed it,
  // and the tracer's hook forwarded that push and the next one to them.
  std::vector<std::string> order;
  for (const FakeCuptiCall& call : calls)
    if (call.what.starts_with("nvtx_") || call.what == "enable") order.push_back(call.what);
  ASSERT_GE(order.size(), 4u);
  EXPECT_EQ(order[0], "enable");
  EXPECT_EQ(std::count(order.begin(), order.end(), "nvtx_handlers_installed"), 1);
  EXPECT_EQ(std::count(order.begin(), order.end(), "nvtx_push:ProfilerStep#3"), 2);
  EXPECT_EQ(std::count(order.begin(), order.end(), "nvtx_push:warmup"), 0);  // before libcupti's handler
  EXPECT_LT(std::find(order.begin(), order.end(), "nvtx_handlers_installed") - order.begin(),
            std::find(order.begin(), order.end(), "nvtx_push:ProfilerStep#3") - order.begin());
  // The 150 ms before the range were never recorded; 50 ms after it were.
  ASSERT_GT(p.kernels.size(), 1000u);
  EXPECT_GT(p.kernels.front().correlation_id, 75'000);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_window_start_on_nvtx"), "ProfilerStep#3");
  const double start = AttributeNumber(p, "kraken_cupti_window_start_us");
  EXPECT_GE(AttributeNumber(p, "kraken_cupti_window_end_us") - start, 50'000);
  for (const Kernel& k : p.kernels) ASSERT_GE(static_cast<double>(k.start_ns) / 1e3, start);
}

TEST(InjectionWindowTest, NvtxStartedBeforeADelayedWindowReachesLibcuptiWhenItOpens) {
  std::string dir = testing::MakeTempDir("injection_window_nvtx_deferred");
  std::map<std::string, std::string> env = WindowedLaunches(dir);
  env["KRAKEN_CUPTI_ACTIVITIES"] = "kernels,nvtx";
  env["KRAKEN_CUPTI_DELAY_MS"] = "50";  // NVTX starts at once, "ProfilerStep#3" comes at 150 ms
  env["KRAKEN_CUPTI_DURATION_MS"] = "300";
  pid_t pid = StartInjectedWithNvtx(env, dir);
  Profile p = WaitForClosedTrace(dir);
  std::vector<FakeCuptiCall> calls = ReadFakeCuptiLog(dir + "/cupti.log");
  kill(pid, SIGKILL);
  Collect(pid, dir);
  // libcupti's NVTX initialization (which attaches CUPTI) waited for the window: CUPTI's
  // first call, then its NVTX handlers, then the push made inside the window only.
  std::vector<std::string> order;
  for (const FakeCuptiCall& call : calls)
    if (call.what.starts_with("nvtx_") || call.what == "attach") order.push_back(call.what);
  EXPECT_EQ(order, (std::vector<std::string>{"attach", "nvtx_handlers_installed", "nvtx_push:ProfilerStep#3",
                                             "nvtx_push:ProfilerStep#3"}));
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_attach"), "when the capture window opened");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_detach"),
            "not possible: libcupti handles the NVTX ranges (NVTX_INJECTION64_PATH) and would attach again");
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
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_hw_trace_result"), "CUPTI_SUCCESS (0)");
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
  // ... but what CUPTI answered is recorded (the fake names every error CUPTI_ERROR_FAKE).
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_hw_trace_result"),
            "CUPTI_ERROR_FAKE (" + std::to_string(static_cast<int>(CUPTI_ERROR_NOT_SUPPORTED)) + ")");
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
  EXPECT_EQ(p.metadata.attributes.count("kraken_cupti_hw_trace_result"), 0u);
  EXPECT_FALSE(LogHas(calls, "subscribe"));
  EXPECT_FALSE(LogHas(calls, "hw_trace_on"));
  EXPECT_EQ(p.kernels.size(), 50u);
}

}  // namespace
}  // namespace kraken::cupti
