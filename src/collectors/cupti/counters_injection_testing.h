// What the per-kernel counter tests share (counters_injection_test.cc,
// counters_stop_test.cc): an application run with the tracer injected and its trace read
// back, the trace's footer attributes, and the fake libcupti's log of the launches that
// reached the tracer and of the callback switches it asked for.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/testing/test_data.h"
#include "collectors/cupti/injection_test_support.h"
#include "importers/registry.h"

namespace kraken::cupti::counters_testing {

// The fake's values for launch i (fake_range_profiler.cc).
inline constexpr double kCounterFakeFadd = 67584, kCounterFakeFfmaBase = 4325376;
inline constexpr double kCounterFakeDramBytes = 540672 + 270336;

// The fp32 FLOPs the fake's counters give the kernel of the launch with `correlation_id`
// (ids count the launches from 1): fadd + 2 x ffma.
inline double FakeLaunchFp32Flops(int64_t correlation_id) {
  return kCounterFakeFadd + 2 * (kCounterFakeFfmaBase + static_cast<double>(correlation_id - 1));
}

// Every kernel of `p` has counters, and they are its own launch's (not a neighbour's).
inline void ExpectEveryKernelHasItsLaunchsCounters(const Profile& p) {
  for (const Kernel& k : p.kernels) {
    ASSERT_GE(k.counters_index, 0) << k.correlation_id;
    const KernelCounters& c = p.kernel_counters[static_cast<size_t>(k.counters_index)];
    ASSERT_DOUBLE_EQ(c.fp32_flops.value_or(-1), FakeLaunchFp32Flops(k.correlation_id)) << k.correlation_id;
  }
}

struct CountersRun {
  int exit_code = -1;
  std::string err;
  Profile trace;
};

// Runs an application that loads the tracer the driver's way (injection_test_support.h)
// and exits normally, or (`on_its_trace`) calls on_its_trace with its pid, then is ended by it.
inline CountersRun RunCountersApp(std::map<std::string, std::string> env, const std::string& dir,
                                  const std::function<void(pid_t)>& on_its_trace = nullptr) {
  env["KRAKEN_CUPTI_OUTPUT"] = dir + "/trace_%p.json";
  pid_t pid = injection_testing::StartInjected(
      env, dir, on_its_trace ? injection_testing::Then::kWaitForSignals : injection_testing::Then::kExit);
  if (on_its_trace) on_its_trace(pid);
  injection_testing::Injected injected = injection_testing::Collect(pid, dir);
  CountersRun run;
  run.exit_code = injected.exit_code;
  run.err = injected.err;
  std::string trace = injection_testing::TraceFileIn(dir);
  EXPECT_FALSE(trace.empty()) << "no trace in " << dir;
  if (trace.empty()) return run;
  auto imported = ImportFile(BuiltinImporters(), trace);
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  if (imported.ok()) run.trace = std::move((*imported)[0]);
  EXPECT_EQ(run.trace.import_counters.count("kineto_trace_cut"), 0u);
  return run;
}

inline std::string CountersAttribute(const Profile& p, const std::string& key) {
  auto it = p.metadata.attributes.find(key);
  return it == p.metadata.attributes.end() ? "<absent>" : it->second;
}

// The fake libcupti's log (KRAKEN_FAKE_CUPTI_LOG): (what, detail) per line, in order.
inline std::vector<std::pair<std::string, int64_t>> ReadCountersFakeCuptiLog(const std::string& path) {
  std::vector<std::pair<std::string, int64_t>> calls;
  std::ifstream in(path);
  int64_t at_ns = 0, detail = 0;
  std::string what;
  while (in >> at_ns >> what >> detail) calls.emplace_back(what, detail);
  return calls;
}

// What the fake's log says of the launch callbacks.
struct LaunchCallbacksSeen {
  int64_t launches_called_back = 0;  // launches announced to the tracer's callback
  int64_t last_called_back = 0;      // the last one's correlation id
  int64_t called_back_after_off = 0;  // announced after a driver launch callback went off
  std::map<std::string, int> switches;  // "callback_on_driver" ... -> how many cbids
};

inline LaunchCallbacksSeen ReadLaunchCallbacksSeen(const std::string& log_path) {
  LaunchCallbacksSeen seen;
  for (const auto& [what, detail] : ReadCountersFakeCuptiLog(log_path)) {
    if (what == "launch_callbacks") {
      ++seen.launches_called_back;
      seen.last_called_back = detail;
      if (seen.switches.count("callback_off_driver") != 0) ++seen.called_back_after_off;
    }
    if (what.starts_with("callback_")) ++seen.switches[what];
  }
  return seen;
}

// The fake range profiler's report at exit (KRAKEN_FAKE_CUPTI_CALLS_FILE in `dir`/calls):
// every profiler the tracer enabled was disabled and every host object deinitialized.
inline void ExpectProfilerReleasedAtExit(const std::string& dir) {
  const std::string calls = kraken::testing::ReadFileOrDie(dir + "/calls");
  EXPECT_NE(calls.find("\nenabled_at_exit=0\nhost_objects_at_exit=0\n"), std::string::npos) << calls;
}

}  // namespace kraken::cupti::counters_testing
