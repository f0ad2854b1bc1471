// Per-kernel counters that stop for good before the limit, end to end with the fake
// libcupti (counters_injection_test.cc has the runs that reach it): when CUPTI refuses a
// step, at a context's set-up or in the middle of a run, the launch callbacks go off as
// they do at the limit, so that no later launch calls into the tracer; when CUPTI refuses
// one of the launch callbacks themselves, those already on go off again before the
// profiler is dropped. Every kernel is still traced.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "collectors/cupti/counters_injection_testing.h"

namespace kraken::cupti {
namespace {

using counters_testing::CountersAttribute;
using counters_testing::CountersRun;
using counters_testing::ExpectProfilerReleasedAtExit;
using counters_testing::FakeLaunchFp32Flops;
using counters_testing::LaunchCallbacksSeen;
using counters_testing::ReadCountersFakeCuptiLog;
using counters_testing::ReadLaunchCallbacksSeen;
using counters_testing::RunCountersApp;

// The launch callbacks went off after `last_launch` reached the tracer, and only they (with
// the graph-node one that tells captured launches): each one turned on was turned off, and
// the context-destroy callback stayed on.
void ExpectLaunchCallbacksOffAfter(const LaunchCallbacksSeen& seen, int64_t last_launch) {
  EXPECT_EQ(seen.launches_called_back, last_launch);
  EXPECT_EQ(seen.last_called_back, last_launch);
  EXPECT_EQ(seen.called_back_after_off, 0);
  auto count = [&seen](const std::string& what) {
    auto it = seen.switches.find(what);
    return it == seen.switches.end() ? 0 : it->second;
  };
  EXPECT_GT(count("callback_on_driver"), 0);
  EXPECT_GT(count("callback_on_runtime"), 0);
  EXPECT_EQ(count("callback_off_driver"), count("callback_on_driver"));
  EXPECT_EQ(count("callback_off_runtime"), count("callback_on_runtime"));
  EXPECT_EQ(count("callback_on_resource"), 2);
  EXPECT_EQ(count("callback_off_resource"), 1);
}

// The set-up of the first context refused (a metric the chip lacks): nothing is ever
// profiled, and the launch callbacks go off in the first launch, not at the limit.
TEST(CountersInjectionTest, ARefusedSetUpTurnsTheLaunchCallbacksOff) {
  std::string dir = testing::MakeTempDir("counters_refused_setup");
  CountersRun run = RunCountersApp(
      {{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
       {"KRAKEN_FAKE_CUPTI_LAUNCHES", "500"},
       {"KRAKEN_FAKE_CUPTI_UNSUPPORTED_METRIC", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"},
       {"KRAKEN_FAKE_CUPTI_LOG", dir + "/cupti.log"},
       {"KRAKEN_CUPTI_COUNTERS", "1"},
       {"KRAKEN_CUPTI_QUIET", "1"}},
      dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.rfind("kraken-cupti: no per-kernel counters: metrics not supported on GH100: ", 0), 0u)
      << run.err;
  EXPECT_EQ(run.trace.kernels.size(), 500u);
  EXPECT_TRUE(run.trace.profiler_ranges.empty());
  EXPECT_EQ(CountersAttribute(run.trace, "kraken_cupti_counter_limit_reached"), "false");
  ExpectLaunchCallbacksOffAfter(ReadLaunchCallbacksSeen(dir + "/cupti.log"), 1);
}

// A decode refused in the middle of the run (the second batch of 16): the first batch is
// kept, the second lost, the range profiler disabled, and the launch callbacks go off
// right after the 32nd launch, long before the limit (2000 kernels).
TEST(CountersInjectionTest, ARefusedDecodeTurnsTheLaunchCallbacksOff) {
  std::string dir = testing::MakeTempDir("counters_refused_decode");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "500"},
                                    {"KRAKEN_FAKE_CUPTI_REFUSE_DECODE", "2"},
                                    {"KRAKEN_FAKE_CUPTI_LOG", dir + "/cupti.log"},
                                    {"KRAKEN_FAKE_CUPTI_CALLS_FILE", dir + "/calls"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_COUNTERS_BATCH", "16"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err,
            "kraken-cupti: per-kernel counters stopped after 32 kernels: cuptiRangeProfilerDecodeData failed: "
            "CUPTI_ERROR_FAKE (999); kernel tracing goes on\n");
  const Profile& p = run.trace;
  ASSERT_EQ(p.kernels.size(), 500u);
  EXPECT_EQ(p.profiler_ranges.size(), 16u);
  for (const Kernel& k : p.kernels) {
    ASSERT_EQ(k.counters_index >= 0, k.correlation_id <= 16) << k.correlation_id;
    if (k.counters_index < 0) continue;
    const KernelCounters& c = p.kernel_counters[static_cast<size_t>(k.counters_index)];
    ASSERT_DOUBLE_EQ(c.fp32_flops.value_or(-1), FakeLaunchFp32Flops(k.correlation_id)) << k.correlation_id;
  }
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_batches"), "1");
  EXPECT_EQ(CountersAttribute(p, "kraken_cupti_counter_limit_reached"), "false");
  EXPECT_NE(CountersAttribute(p, "kraken_cupti_counters_error").find("cuptiRangeProfilerDecodeData"),
            std::string::npos);
  ExpectLaunchCallbacksOffAfter(ReadLaunchCallbacksSeen(dir + "/cupti.log"), 32);
  ExpectProfilerReleasedAtExit(dir);
}

// CUPTI refuses the third launch callback while the profiler subscribes (the fake's
// KRAKEN_FAKE_CUPTI_REFUSE_CALLBACK): the two already on must go off again, or each launch
// would call a profiler that is gone. No launch reaches the tracer, the context-destroy
// callback is never asked for, the profiler is never touched, and every kernel is traced.
TEST(CountersInjectionTest, ARefusedLaunchCallbackTurnsThoseOnOffAgain) {
  std::string dir = testing::MakeTempDir("counters_refused_callback");
  CountersRun run = RunCountersApp({{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                    {"KRAKEN_FAKE_CUPTI_LAUNCHES", "200"},
                                    {"KRAKEN_FAKE_CUPTI_REFUSE_CALLBACK", "3"},
                                    {"KRAKEN_FAKE_CUPTI_LOG", dir + "/cupti.log"},
                                    {"KRAKEN_FAKE_CUPTI_CALLS_FILE", dir + "/calls"},
                                    {"KRAKEN_CUPTI_COUNTERS", "1"},
                                    {"KRAKEN_CUPTI_QUIET", "1"}},
                                   dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err,
            "kraken-cupti: no per-kernel counters: cuptiEnableCallback (kernel launches) failed: "
            "CUPTI_ERROR_FAKE (999); kernel tracing goes on\n");
  EXPECT_EQ(run.trace.kernels.size(), 200u);
  EXPECT_TRUE(run.trace.profiler_ranges.empty());
  EXPECT_NE(CountersAttribute(run.trace, "kraken_cupti_counters_error").find("cuptiEnableCallback"),
            std::string::npos);
  std::set<int64_t> turned_on, refused, turned_off;
  int64_t launches_called_back = 0, resource_switches = 0;
  for (const auto& [what, cbid] : ReadCountersFakeCuptiLog(dir + "/cupti.log")) {
    if (what == "launch_callbacks") ++launches_called_back;
    if (what == "callback_on_driver" || what == "callback_on_runtime") turned_on.insert(cbid);
    if (what == "callback_refused_driver" || what == "callback_refused_runtime") refused.insert(cbid);
    if (what == "callback_off_driver" || what == "callback_off_runtime") turned_off.insert(cbid);
    if (what.ends_with("_resource")) ++resource_switches;
  }
  EXPECT_EQ(turned_on.size(), 2u);
  EXPECT_EQ(refused.size(), 1u);
  for (int64_t cbid : turned_on) EXPECT_EQ(turned_off.count(cbid), 1u) << "left on: cbid " << cbid;
  for (int64_t cbid : refused) EXPECT_EQ(turned_off.count(cbid), 1u) << "not turned off: cbid " << cbid;
  EXPECT_EQ(launches_called_back, 0);
  EXPECT_EQ(resource_switches, 0);
  EXPECT_EQ(testing::ReadFileOrDie(dir + "/calls"), "profiler_calls=0\nenabled_at_exit=0\nhost_objects_at_exit=0\n");
}

}  // namespace
}  // namespace kraken::cupti
