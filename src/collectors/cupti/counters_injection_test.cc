// KRAKEN_CUPTI_COUNTERS end to end without a GPU: libkraken_cupti.so injected into a child
// "application" whose libcupti is the fake (fake_cupti.cc + fake_range_profiler.cc), the
// trace read back by kraken's Kineto importer. Counters are off unless asked for; on, every
// kernel up to KRAKEN_CUPTI_COUNTERS_MAX_KERNELS gets the fake's values for its launch;
// a libcupti without the range profiler still yields the whole kernel trace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "collectors/cupti/counters_injection_testing.h"
#include "collectors/cupti/injection_test_support.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

using counters_testing::CountersAttribute;
using counters_testing::CountersRun;
using counters_testing::ExpectProfilerReleasedAtExit;
using counters_testing::kCounterFakeDramBytes;
using counters_testing::ExpectEveryKernelHasItsLaunchsCounters;
using counters_testing::FakeLaunchFp32Flops;
using counters_testing::ReadLaunchCallbacksSeen;
using counters_testing::RunCountersApp;

TEST(CountersInjectionTest, OffByDefaultNoRangeAndNoProfilerCall) {
  std::string dir = testing::MakeTempDir("counters_off");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "200"},
                                    {"KRAKEN_FAKE_CUPTI_CALLS_FILE", dir + "/calls"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.trace.kernels.size(), 200u);
  EXPECT_TRUE(run.trace.profiler_ranges.empty());
  EXPECT_TRUE(run.trace.kernel_counters.empty());
  EXPECT_EQ(CountersAttribute(run.trace, "kraken_cupti_counter_kernels"), "<absent>");
  EXPECT_EQ(testing::ReadFileOrDie(dir + "/calls"), "profiler_calls=0\nenabled_at_exit=0\nhost_objects_at_exit=0\n");
}

TEST(CountersInjectionTest, OnEveryKernelUpToTheLimitGetsItsLaunchsCounters) {
  std::string dir = testing::MakeTempDir("counters_on");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "1000"},
                                    {"KRAKEN_FAKE_CUPTI_CALLS_FILE", dir + "/calls"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_COUNTERS_MAX_KERNELS", "300"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("per-kernel counters on: kernels are replayed"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "more than one line: " << run.err;
  const Profile& p = run.trace;
  ASSERT_EQ(p.kernels.size(), 1000u);  // tracing goes on past the limit
  ASSERT_EQ(p.profiler_ranges.size(), 300u);
  EXPECT_EQ(p.Name(p.profiler_ranges[0].name), "fake_kernel(float*, int)");  // as its kernel record
  EXPECT_EQ(p.profiler_ranges[0].raw_counters.at("gpu__time_duration.sum"), 1000);
  size_t with_counters = 0;
  for (const Kernel& k : p.kernels) {
    if (k.correlation_id > 300) {
      ASSERT_EQ(k.counters_index, -1) << k.correlation_id;
      continue;
    }
    ++with_counters;
    ASSERT_GE(k.counters_index, 0) << k.correlation_id;
    const KernelCounters& c = p.kernel_counters[static_cast<size_t>(k.counters_index)];
    ASSERT_DOUBLE_EQ(c.fp32_flops.value_or(-1), FakeLaunchFp32Flops(k.correlation_id)) << k.correlation_id;
    ASSERT_DOUBLE_EQ(c.fp64_flops.value_or(-1), 0);
    ASSERT_DOUBLE_EQ(c.dram_bytes.value_or(-1), kCounterFakeDramBytes);
    ASSERT_DOUBLE_EQ(c.sm_throughput_pct.value_or(-1), 42.5);
    ASSERT_DOUBLE_EQ(c.dram_throughput_pct.value_or(-1), 20);
  }
  EXPECT_EQ(with_counters, 300u);
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counters"), "range_profiler");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_kernels"), "300");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_passes"), "3");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_limit_reached"), "true");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_dropped"), "0");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_unmatched"), "0");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_batches"), "3");  // 128 + 128 + 44 at the limit
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counters_error"), "<absent>");
  // The fake refuses calls out of CUPTI's order (fake_range_profiler.cc), so no error above
  // means the order held; at the limit the range profiler was disabled and the host
  // object deinitialized (cuptiRangeProfilerDisable frees what CUPTI holds for the context).
  ExpectProfilerReleasedAtExit(dir);
}

// Small batches (as the GPU validation runs them, to see CUPTI take a counter data image
// decoded inside a launch callback, reset and configured again): every kernel still gets
// its own launch's counters, and the profiler ends disabled.
TEST(CountersInjectionTest, SmallBatchesAreDecodedAndRestartedInTurn) {
  std::string dir = testing::MakeTempDir("counters_batches");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "100"},
                                    {"KRAKEN_FAKE_CUPTI_CALLS_FILE", dir + "/calls"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_COUNTERS_BATCH", "16"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const Profile& p = run.trace;
  ASSERT_EQ(p.kernels.size(), 100u);
  ASSERT_EQ(p.profiler_ranges.size(), 100u);
  ExpectEveryKernelHasItsLaunchsCounters(p);
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_batches"), "7");  // 6 x 16 in callbacks, 4 at exit
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_unmatched"), "0");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counters_error"), "<absent>");
  ExpectProfilerReleasedAtExit(dir);
}

// A chip without one of the metrics: CUPTI's host object refuses the list; the tracer
// names the metric in one line and in the footer, and traces every kernel without counters.
TEST(CountersInjectionTest, AnUnsupportedMetricDropsTheCountersWithOneLine) {
  std::string dir = testing::MakeTempDir("counters_unsupported");
  const std::string tensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "200"},
                                    {"KRAKEN_FAKE_CUPTI_UNSUPPORTED_METRIC", tensor},
                                    {"KRAKEN_FAKE_CUPTI_CALLS_FILE", dir + "/calls"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err,
            "kraken-cupti: no per-kernel counters: metrics not supported on GH100: " + tensor +
                "; kernel tracing goes on\n");
  const Profile& p = run.trace;
  EXPECT_EQ(p.kernels.size(), 200u);
  EXPECT_TRUE(p.profiler_ranges.empty());
  EXPECT_TRUE(p.kernel_counters.empty());
  EXPECT_NE(CountersAttribute(p, "kraken_cupti_counters_error").find(tensor), std::string::npos);
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_kernels"), "0");
  // Nothing was enabled on the context, and the host object was released.
  ExpectProfilerReleasedAtExit(dir);
}

// A device CUPTI cannot profile (a vGPU whose profiling is off): the reason in one line,
// every kernel traced.
TEST(CountersInjectionTest, ADeviceThatCannotBeProfiledSaysWhyInOneLine) {
  std::string dir = testing::MakeTempDir("counters_vgpu");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "50"},
                                    {"KRAKEN_FAKE_CUPTI_PROFILING", "vgpu-disabled"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err,
            "kraken-cupti: no per-kernel counters: CUPTI cannot profile device 0: vGPU (profiling disabled); "
            "kernel tracing goes on\n");
  EXPECT_EQ(run.trace.kernels.size(), 50u);
  EXPECT_TRUE(run.trace.profiler_ranges.empty());
}

// A kernel CUPTI profiles without a launch callback (a CUDA graph's) takes a range of its
// batch of 128: the batch has 129 ranges for 128 launches (its image holds twice the
// batch), so its ranges are written untied ("__missing__", no correlation) instead of
// shifting its kernels onto their neighbours' counters; the batches before and after are tied.
TEST(CountersInjectionTest, ABatchWithMoreRangesThanLaunchesIsNotMisattributed) {
  std::string dir = testing::MakeTempDir("counters_unmatched");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "300"},
                                    {"KRAKEN_FAKE_CUPTI_UNANNOUNCED", "150"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Profile& p = run.trace;
  ASSERT_EQ(p.kernels.size(), 300u);
  EXPECT_EQ(p.profiler_ranges.size(), 128u + 129u + 43u);
  size_t untied = 0;
  for (const ProfilerRange& range : p.profiler_ranges) untied += p.Name(range.name) == "__missing__";
  EXPECT_EQ(untied, 129u);
  for (const Kernel& k : p.kernels) {
    const bool tied = k.correlation_id <= 128 || k.correlation_id > 257;  // launch 150 had no callback
    ASSERT_EQ(k.counters_index >= 0, tied) << k.correlation_id;
    if (!tied) continue;
    const KernelCounters& c = p.kernel_counters[static_cast<size_t>(k.counters_index)];
    ASSERT_DOUBLE_EQ(c.fp32_flops.value_or(-1), FakeLaunchFp32Flops(k.correlation_id)) << k.correlation_id;
  }
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_kernels"), "299");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_unmatched"), "129");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_dropped"), "0");
}

// A new thread's first runtime launch enters with no context (the runtime binds it inside
// the call) and still runs profiled when another thread started the profiler: on an H200
// (run 10b) such ranges started at 0, Unix time 0 in the trace. Its range starts at its
// call now, among its neighbours', and the kernel keeps its own launch's counters.
TEST(CountersInjectionTest, ALaunchEnteredWithoutAContextStillStartsAtItsCall) {
  std::string dir = testing::MakeTempDir("counters_no_context");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "20"},
                                    {"KRAKEN_FAKE_CUPTI_NO_CONTEXT_AT_ENTER", "5"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Profile& p = run.trace;
  ASSERT_EQ(p.profiler_ranges.size(), 20u);
  ExpectEveryKernelHasItsLaunchsCounters(p);
  const TimeNs first = p.profiler_ranges.front().start_ns;
  for (const ProfilerRange& range : p.profiler_ranges) {
    EXPECT_GE(range.start_ns, first);  // in launch order, none placed before the first
    EXPECT_LT(range.start_ns - first, 60'000'000'000) << "a range placed outside the run";
    EXPECT_GE(range.duration_ns, 0);
  }
}

// A launch captured into a CUDA graph (torch.cuda.graph, torch.compile's CUDA graphs) runs no
// kernel: CUPTI creates a graph node inside its call and no range comes. Recorded as a
// launch, it left its batch with more launches than ranges: every range of the batch was
// written untied. Counted instead, every kernel that ran keeps its own launch's counters.
TEST(CountersInjectionTest, ALaunchCapturedIntoAGraphTakesNoRangeAndUntiesNothing) {
  std::string dir = testing::MakeTempDir("counters_captured");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "40"},
                                    {"KRAKEN_FAKE_CUPTI_CAPTURED", "7"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Profile& p = run.trace;
  ASSERT_EQ(p.profiler_ranges.size(), 39u);
  for (const Kernel& k : p.kernels) {
    if (k.correlation_id == 8) {  // launch 7: captured, its kernel record has no counters
      EXPECT_EQ(k.counters_index, -1);
      continue;
    }
    ASSERT_GE(k.counters_index, 0) << k.correlation_id;
    const KernelCounters& c = p.kernel_counters[static_cast<size_t>(k.counters_index)];
    ASSERT_DOUBLE_EQ(c.fp32_flops.value_or(-1), FakeLaunchFp32Flops(k.correlation_id)) << k.correlation_id;
  }
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_kernels"), "39");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_launches_captured"), "1");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_unmatched"), "0");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_dropped"), "0");
}

// A graph launch: CUPTI profiles the graph's kernels, which no launch callback announces, so
// a batch with them was written untied. The profiler is stopped for the call, as for a set: the graph's kernels run unprofiled, counted, and every eager kernel
// around it keeps its own launch's counters.
TEST(CountersInjectionTest, AGraphLaunchRunsUnprofiledAndUntiesNothing) {
  std::string dir = testing::MakeTempDir("counters_graph_launch");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "40"},
                                    {"KRAKEN_FAKE_CUPTI_GRAPH_LAUNCH", "10"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Profile& p = run.trace;
  ASSERT_EQ(p.kernels.size(), 40u);
  EXPECT_EQ(p.profiler_ranges.size(), 40u);  // none of the graph's 3
  ExpectEveryKernelHasItsLaunchsCounters(p);
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_graph_launches_unprofiled"), "1");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_unmatched"), "0");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_batches"), "2");  // collected at the graph launch, then at exit
}

// A set between launches that runs as a kernel (a 4 MiB cudaMemsetAsync on an H100) takes a
// range of its own without a launch callback; with one before every 5th launch, every
// kernel's counters were its predecessor's from the first set on. The tracer collects the
// batch at the set's entry and starts again at its exit: no range is the set's, every
// kernel gets its own launch's counters, and each set ends a batch (59 sets, then Finish).
TEST(CountersInjectionTest, SetsBetweenLaunchesRunUnprofiledAndShiftNoKernel) {
  std::string dir = testing::MakeTempDir("counters_memsets");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "300"},
                                    {"KRAKEN_FAKE_CUPTI_MEMSET_EVERY", "5"},
                                    {"KRAKEN_FAKE_CUPTI_CALLS_FILE", dir + "/calls"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const Profile& p = run.trace;
  ASSERT_EQ(p.kernels.size(), 300u);
  EXPECT_EQ(p.profiler_ranges.size(), 300u);
  ExpectEveryKernelHasItsLaunchsCounters(p);
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_kernels"), "300");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_batches"), "60");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_unmatched"), "0");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_ranges_dropped"), "0");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counters_error"), "<absent>");
  ExpectProfilerReleasedAtExit(dir);
}

// At the limit the launch callbacks the counters enabled go off: no later launch calls
// into the tracer (each would cost the application a callback for nothing), while the
// context-destroy callback stays on and every kernel is still traced.
TEST(CountersInjectionTest, TheLaunchCallbacksGoOffAtTheLimit) {
  std::string dir = testing::MakeTempDir("counters_callbacks_off");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "1000"},
                                    {"KRAKEN_FAKE_CUPTI_LOG", dir + "/cupti.log"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_COUNTERS_MAX_KERNELS", "300"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.trace.kernels.size(), 1000u);
  EXPECT_EQ(run.trace.profiler_ranges.size(), 300u);
  EXPECT_EQ(CountersAttribute(run.trace, "kraken_cupti_counter_limit_reached"), "true");
  auto [launches_called_back, last_called_back, called_back_after_off, switches] =
      ReadLaunchCallbacksSeen(dir + "/cupti.log");
  EXPECT_EQ(launches_called_back, 300);  // 1000 while the callbacks stayed on
  EXPECT_EQ(last_called_back, 300);
  EXPECT_EQ(called_back_after_off, 0);
  EXPECT_GT(switches["callback_on_driver"], 0);
  EXPECT_GT(switches["callback_on_runtime"], 0);
  EXPECT_EQ(switches["callback_off_driver"], switches["callback_on_driver"]);
  EXPECT_EQ(switches["callback_off_runtime"], switches["callback_on_runtime"]);
  // The context's destruction and graph-node creation (captured launches) on; only the
  // latter goes off with the launch callbacks.
  EXPECT_EQ(switches["callback_on_resource"], 2);
  EXPECT_EQ(switches["callback_off_resource"], 1);
}

TEST(CountersInjectionTest, ALibcuptiWithoutTheRangeProfilerStillTracesEveryKernel) {
  std::string dir = testing::MakeTempDir("counters_norange");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_NORANGE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "100"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.rfind("kraken-cupti: no per-kernel counters: ", 0), 0u) << run.err;
  EXPECT_NE(run.err.find("has no range profiler (CUDA 12.6 or newer is needed; missing cuptiGetDeviceId"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("; kernel tracing goes on\n"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "more than one line: " << run.err;
  EXPECT_EQ(run.trace.kernels.size(), 100u);
  EXPECT_TRUE(run.trace.profiler_ranges.empty());
  EXPECT_NE(CountersAttribute(run.trace, "kraken_cupti_counters_error").find("has no range profiler"),
            std::string::npos);
  EXPECT_EQ(CountersAttribute(run.trace, "kraken_cupti_counter_kernels"), "0");
}

// A fatal SIGTERM while kernels are being profiled: the writer closes the trace with the
// batches decoded so far (2000 kernels, the limit, are long decoded by 4 MiB of trace) and
// the footer; the process still dies of SIGTERM.
TEST(CountersInjectionTest, SigtermClosesATraceWithCountersReadably) {
  std::string dir = testing::MakeTempDir("counters_sigterm");
  auto kill_when_written = [&](pid_t pid) {
    for (int i = 0; i < 4000; ++i) {
      std::string trace = injection_testing::TraceFileIn(dir);
      std::error_code error;
      if (!trace.empty() && std::filesystem::file_size(trace, error) >= (4u << 20)) {
        kill(pid, SIGTERM);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ADD_FAILURE() << "no 4 MiB trace in " << dir;
    kill(pid, SIGKILL);
  };
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "-1"},
                                    {"KRAKEN_FAKE_CUPTI_PER_FLUSH", "2000"},
                                    {"KRAKEN_CUPTI_FLUSH_MS", "10"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir, kill_when_written);
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  const Profile& p = run.trace;  // RunCountersApp checked that it is not cut
  EXPECT_GE(p.kernels.size(), 2000u);
  EXPECT_EQ(p.profiler_ranges.size(), 2000u);
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_kernels"), "2000");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_limit_reached"), "true");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_kernels"), std::to_string(p.kernels.size()));
}

}  // namespace
}  // namespace kraken::cupti
