// The pure parts of the per-kernel counters: the settings, the metric list the importer
// understands, and one profiled kernel as a trace event that kraken's Kineto importer
// reads back into the kernel's KernelCounters (tied by correlation id).
#include "collectors/cupti/counter_events.h"

#include <gtest/gtest.h>

#include <map>
#include <string_view>

#include "base/testing/test_data.h"
#include "collectors/cupti/tracer_config.h"
#include "collectors/cupti/tracer_config_testing.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

TEST(CounterConfigTest, OffByDefaultOnWithOneAndBoundedByMaxKernels) {
  TracerConfig defaults = TracerConfigFromVars({});
  EXPECT_FALSE(defaults.counters);
  EXPECT_EQ(defaults.counters_max_kernels, 2000);
  TracerConfig on = TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS", "1"}, {"KRAKEN_CUPTI_COUNTERS_MAX_KERNELS", "50"}});
  EXPECT_TRUE(on.counters);
  EXPECT_EQ(on.counters_max_kernels, 50);
  EXPECT_TRUE(on.problems.empty());
  TracerConfig bad = TracerConfigFromVars({{"KRAKEN_CUPTI_COUNTERS", "yes"}, {"KRAKEN_CUPTI_COUNTERS_MAX_KERNELS", "0"}});
  EXPECT_FALSE(bad.counters);
  EXPECT_EQ(bad.counters_max_kernels, 2000);
  ASSERT_EQ(bad.problems.size(), 2u);
  EXPECT_EQ(bad.problems[0], "KRAKEN_CUPTI_COUNTERS=yes is not 0 or 1; per-kernel counters stay off");
  EXPECT_EQ(bad.problems[1],
            "KRAKEN_CUPTI_COUNTERS_MAX_KERNELS=0 is not a whole number from 1 to 1000000; using 2000");
}

TEST(CounterEventsTest, MetricsCoverTheRooflineInputs) {
  std::map<std::string_view, int> names;
  for (const char* name : CounterMetricNames()) ++names[name];
  EXPECT_EQ(names.size(), CounterMetricNames().size());  // no duplicate
  for (const char* op : {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"})
    EXPECT_EQ(names.count("smsp__sass_thread_inst_executed_op_" + std::string(op) + "_pred_on.sum"), 1u) << op;
  EXPECT_EQ(names.count("dram__bytes_read.sum"), 1u);
  EXPECT_EQ(names.count("dram__bytes_write.sum"), 1u);
  EXPECT_EQ(names.count("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 1u);
  EXPECT_EQ(names.count("dram__throughput.avg.pct_of_peak_sustained_elapsed"), 1u);
}

CounterRange CounterTestRange(int64_t correlation, double ffma) {
  CounterRange range;
  range.kernel_name = "_Z4gemmPfS_";
  range.correlation_id = correlation;
  range.device = 1;
  range.start_ns = 5'000;
  range.end_ns = 9'000;
  for (std::string_view name : CounterMetricNames()) {
    double value = 0;
    if (name == "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") value = 10;
    if (name == "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") value = ffma;
    if (name == "dram__bytes_read.sum") value = 3000;
    if (name == "dram__bytes_write.sum") value = 1000;
    if (name == "sm__throughput.avg.pct_of_peak_sustained_elapsed") value = 61.5;
    if (name == "dram__throughput.avg.pct_of_peak_sustained_elapsed") value = 12.25;
    range.values.push_back(value);
  }
  return range;
}

TEST(CounterEventsTest, RangeBecomesAKinetoProfilerRangeEvent) {
  CounterRange range = CounterTestRange(77, 500);
  TraceEvent event;
  CounterRangeToEvent(range, 1'000'000, &event);
  EXPECT_EQ(event.category, "cuda_profiler_range");
  EXPECT_EQ(event.name, "_Z4gemmPfS_");
  EXPECT_EQ(event.pid, 1);
  EXPECT_EQ(event.start_ns, 1'005'000);
  EXPECT_EQ(event.duration_ns, 4'000);
  ASSERT_EQ(event.arg_count, static_cast<int>(CounterMetricNames().size()) + 2);
  EXPECT_EQ(event.args[0].key, "correlation");
  EXPECT_EQ(event.args[0].int_value, 77);
  EXPECT_EQ(event.args[4].key, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
  EXPECT_DOUBLE_EQ(event.args[4].double_value, 500);
  range.kernel_name.clear();
  CounterRangeToEvent(range, 0, &event);
  EXPECT_EQ(event.name, "__missing__");  // Kineto's name for a range it could not name
}

TEST(CounterEventsTest, FooterStatesKernelsPassesAndError) {
  CounterSummary summary{.kernels_profiled = 12, .passes = 3, .max_kernels = 12, .ranges_dropped = 0,
                         .limit_reached = true, .error = "cuptiRangeProfilerStart failed: X"};
  std::map<std::string, std::string> members;
  for (const auto& [name, value] : CounterFooterMembers(summary)) members[name] = value;
  EXPECT_EQ(members["kraken_cupti_counter_kernels"], "12");
  EXPECT_EQ(members["kraken_cupti_counter_passes"], "3");
  EXPECT_EQ(members["kraken_cupti_counter_limit_reached"], "true");
  EXPECT_EQ(members["kraken_cupti_counters_error"], "\"cuptiRangeProfilerStart failed: X\"");
}

// Written by the tracer's writer, read by kraken: the kernel with the range's correlation
// id gets the counters (FLOPs, DRAM bytes, throughputs); a kernel without one gets none.
TEST(CounterEventsTest, ImporterTiesTheRangeToItsKernel) {
  std::string path = testing::MakeTempDir("counter_events") + "/trace.json";
  std::string error;
  auto writer = KinetoTraceWriter::Open(path, 0, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  for (int64_t correlation : {41, 42}) {
    TraceEvent kernel;
    kernel.category = "kernel";
    kernel.name = "_Z4gemmPfS_";
    kernel.pid = 1;
    kernel.tid = 7;
    kernel.start_ns = 10'000 * correlation;
    kernel.duration_ns = 2'000;
    kernel.AddInt("device", 1);
    kernel.AddInt("stream", 7);
    kernel.AddInt("correlation", correlation);
    writer->Emit(kernel);
  }
  CounterRange range = CounterTestRange(42, 500);
  TraceEvent event;
  CounterRangeToEvent(range, 0, &event);
  writer->Emit(event);
  ASSERT_TRUE(writer->Finish({}));

  auto imported = ImportFile(BuiltinImporters(), path);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& profile = (*imported)[0];
  ASSERT_EQ(profile.kernels.size(), 2u);
  ASSERT_EQ(profile.profiler_ranges.size(), 1u);
  EXPECT_EQ(profile.kernels[0].counters_index, -1);
  ASSERT_GE(profile.kernels[1].counters_index, 0);
  const KernelCounters& counters = profile.kernel_counters[static_cast<size_t>(profile.kernels[1].counters_index)];
  EXPECT_DOUBLE_EQ(counters.fp32_flops.value_or(-1), 10 + 2 * 500);
  EXPECT_DOUBLE_EQ(counters.dram_bytes.value_or(-1), 4000);
  EXPECT_DOUBLE_EQ(counters.sm_throughput_pct.value_or(-1), 61.5);
  EXPECT_DOUBLE_EQ(counters.dram_throughput_pct.value_or(-1), 12.25);
}

}  // namespace
}  // namespace kraken::cupti
