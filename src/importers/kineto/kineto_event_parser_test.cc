#include "importers/kineto/kineto_event_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace kraken::kineto {
namespace {

// Events are parsed in place and need 64 readable bytes after them.
void ParseOne(EventParser& parser, const std::string& json) {
  std::string padded = json + std::string(64, ' ');
  parser.Parse(std::string_view(padded.data(), json.size()));
}

TEST(MicrosTextToNsTest, ConvertsExactly) {
  int64_t ns = 0;
  ASSERT_TRUE(MicrosTextToNs("1623142623460111", &ns));
  EXPECT_EQ(ns, 1623142623460111000);
  ASSERT_TRUE(MicrosTextToNs("3605057436108.407", &ns));
  EXPECT_EQ(ns, 3605057436108407);
  ASSERT_TRUE(MicrosTextToNs("1712195495984501.2", &ns));
  EXPECT_EQ(ns, 1712195495984501200);
  ASSERT_TRUE(MicrosTextToNs("4.9285", &ns));
  EXPECT_EQ(ns, 4929);  // the 4th decimal rounds
  ASSERT_TRUE(MicrosTextToNs("1.5e3", &ns));
  EXPECT_EQ(ns, 1500000);
  ASSERT_TRUE(MicrosTextToNs("\"12\"", &ns));
  EXPECT_EQ(ns, 12000);
  EXPECT_FALSE(MicrosTextToNs("abc", &ns));
  EXPECT_FALSE(MicrosTextToNs("99999999999999999999999", &ns));
}

TEST(EventParserTest, ReadsAKernelWithAllItsArgs) {
  Profile profile;
  EventParser parser(&profile);
  ParseOne(parser, R"json({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float",
    "pid": 0, "tid": 40, "ts": 4458677009853.422, "dur": 2636.669,
    "args": {"External id": 12945, "queued": 0, "device": 0, "context": 1, "stream": 40,
      "correlation": 60047, "registers per thread": 96, "shared memory": 87568,
      "blocks per SM": 0.074074, "warps per SM": 1.259259, "grid": [8, 1, 1], "block": [544, 1, 1],
      "est. achieved occupancy %": 0, "Collective name": "allreduce", "In msg nelems": 6637568,
      "Out msg nelems": 6637568, "Group size": 2, "dtype": "Float", "Process Group Ranks": [0, 1]}})json");
  parser.Finish();
  ASSERT_EQ(profile.kernels.size(), 1u);
  const Kernel& k = profile.kernels[0];
  EXPECT_EQ(profile.Name(k.name), "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(k.start_ns, 4458677009853422);
  EXPECT_EQ(k.duration_ns, 2636669);
  EXPECT_EQ(k.stream, 40);
  EXPECT_EQ(k.correlation_id, 60047);
  EXPECT_EQ(k.external_id, 12945);
  EXPECT_EQ(k.registers_per_thread, 96);
  EXPECT_EQ(k.shared_memory_bytes, 87568);
  EXPECT_EQ(k.grid, (Dim3{8, 1, 1}));
  EXPECT_EQ(k.block, (Dim3{544, 1, 1}));
  EXPECT_NEAR(k.blocks_per_sm, 0.074074, 1e-9);
  ASSERT_GE(k.collective_index, 0);
  const CollectiveInfo& c = profile.collectives[k.collective_index];
  EXPECT_EQ(c.collective_name, "allreduce");
  EXPECT_EQ(c.in_msg_nelems, 6637568);
  EXPECT_EQ(c.group_size, 2);
  EXPECT_EQ(c.process_group_ranks, "[0, 1]");
}

TEST(EventParserTest, LegacyEventsWithStringThreadsAndAnyFieldOrder) {
  Profile profile;
  EventParser parser(&profile);
  ParseOne(parser, R"json({"args": {"device": 0, "stream": 7, "correlation": 34417, "bytes": 19267584},
    "ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
    "tid": "stream 7", "ts": 1623142623529248, "dur": 1940})json");
  ParseOne(parser, R"json({"ph": "X", "cat": "Operator", "name": "ProfilerStep#5", "pid": 25738,
    "tid": "25738", "ts": 1623142623460172, "dur": 176078})json");
  ParseOne(parser, R"json({"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyAsync", "pid": 1, "tid": 1,
    "ts": 10, "dur": 2, "args": {"correlation": "77", "bytes": "9216"}})json");
  parser.Finish();
  ASSERT_EQ(profile.memory_ops.size(), 1u);
  const MemoryOp& m = profile.memory_ops[0];
  EXPECT_EQ(m.direction, CopyDirection::kHostToDevice);
  EXPECT_TRUE(m.pageable_host_memory);
  EXPECT_EQ(m.bytes, 19267584);
  EXPECT_EQ(m.stream, 7);
  ASSERT_EQ(profile.steps.size(), 1u);
  EXPECT_EQ(profile.steps[0].step_number, 5);
  EXPECT_EQ(profile.steps[0].duration_ns, 176078000);
  EXPECT_EQ(profile.steps[0].tid, 25738);
  ASSERT_EQ(profile.runtime_calls.size(), 1u);
  EXPECT_EQ(profile.runtime_calls[0].correlation_id, 77);
}

TEST(EventParserTest, BadEventsAreCountedNotFatal) {
  Profile profile;
  EventParser parser(&profile);
  ParseOne(parser, R"json({"ph": "X", "cat": "kernel", "name": "k", "ts": )json");
  ParseOne(parser, R"json([1, 2, 3])json");
  ParseOne(parser, R"json({"ph": "X", "cat": "kernel", "name": "no timestamp", "dur": 5})json");
  ParseOne(parser, R"json({"ph": "X", "cat": "brand_new_category", "name": "x", "ts": 1, "dur": 1})json");
  ParseOne(parser, R"json({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": -5})json");
  parser.Finish();
  EXPECT_EQ(profile.import_counters["kineto_malformed_events"], 2);
  EXPECT_EQ(profile.import_counters["kineto_events_missing_timestamp"], 1);
  EXPECT_EQ(profile.import_counters["kineto_ignored_category:brand_new_category"], 1);
  EXPECT_EQ(profile.import_counters["kineto_negative_durations_clamped"], 1);
  ASSERT_EQ(profile.kernels.size(), 1u);
  EXPECT_EQ(profile.kernels[0].duration_ns, 0);
}

TEST(EventParserTest, InvalidUtf8AndControlCharactersAreRepaired) {
  Profile profile;
  EventParser parser(&profile);
  ParseOne(parser, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\xff\xfe\x01name\", \"ts\": 1, \"dur\": 2}");
  parser.Finish();
  ASSERT_EQ(profile.cpu_ops.size(), 1u);
  EXPECT_EQ(profile.Name(profile.cpu_ops[0].name), "op?? name");
  EXPECT_EQ(profile.import_counters["kineto_events_sanitized"], 1);
}

TEST(EventParserTest, ProfilerRangeCountersBecomeFlops) {
  Profile profile;
  EventParser parser(&profile);
  ParseOne(parser, R"json({"ph": "X", "cat": "cuda_profiler_range", "name": "fft2d_r2c_32x32", "ts": 1, "dur": 10,
    "args": {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 100,
             "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 50,
             "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 25}})json");
  parser.Finish();
  ASSERT_EQ(profile.profiler_ranges.size(), 1u);
  const auto& counters = profile.kernel_counters[profile.profiler_ranges[0].counters_index];
  ASSERT_TRUE(counters.fp32_flops.has_value());
  EXPECT_DOUBLE_EQ(*counters.fp32_flops, 100 + 50 + 2 * 25);
  EXPECT_FALSE(counters.fp64_flops.has_value());
}

// kraken's CUPTI tracer (KRAKEN_CUPTI_COUNTERS=1) names the launch: the kernel with the
// same correlation id gets the range's counters, DRAM bytes and throughputs included.
TEST(EventParserTest, ProfilerRangeWithACorrelationGivesItsKernelTheCounters) {
  Profile profile;
  EventParser parser(&profile);
  ParseOne(parser, R"json({"ph": "X", "cat": "cuda_profiler_range", "name": "_Z4gemmv", "ts": 1, "dur": 10,
    "args": {"correlation": 8, "device": 0, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": 4,
             "dram__bytes_read.sum": 300, "dram__bytes_write.sum": 100,
             "sm__throughput.avg.pct_of_peak_sustained_elapsed": 55.5,
             "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 33,
             "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed": 0}})json");
  for (int correlation : {7, 8})
    ParseOne(parser, R"json({"ph": "X", "cat": "kernel", "name": "gemm", "ts": 2, "dur": 3,
      "args": {"device": 0, "stream": 7, "correlation": )json" + std::to_string(correlation) + "}}");
  parser.Finish();
  ASSERT_EQ(profile.kernels.size(), 2u);
  EXPECT_EQ(profile.kernels[0].counters_index, -1);
  ASSERT_EQ(profile.kernels[1].counters_index, profile.profiler_ranges[0].counters_index);
  const KernelCounters& c = profile.kernel_counters[static_cast<size_t>(profile.kernels[1].counters_index)];
  EXPECT_DOUBLE_EQ(c.fp64_flops.value_or(-1), 8);
  EXPECT_FALSE(c.fp32_flops.has_value());
  EXPECT_DOUBLE_EQ(c.dram_bytes.value_or(-1), 400);
  EXPECT_DOUBLE_EQ(c.sm_throughput_pct.value_or(-1), 55.5);
  EXPECT_DOUBLE_EQ(c.memory_throughput_pct.value_or(-1), 33);
  EXPECT_DOUBLE_EQ(c.tensor_pipe_active_pct.value_or(-1), 0);
  EXPECT_FALSE(c.dram_throughput_pct.has_value());
  EXPECT_EQ(profile.profiler_ranges[0].raw_counters.count("correlation"), 0u);  // a link, not a counter
}

// Under kernel replay CUPTI gives kernel records no timestamps and the tracer counts them in
// its footer: that many launch ranges without a kernel become kernels (at the launch's
// start, lasting gpu__time_duration.sum); a range whose kernel is traced, one beyond the
// count, or one in a trace whose footer counts none (a kernel record not written yet) does not.
TEST(EventParserTest, LaunchRangesBecomeTheKernelsCuptiLeftWithoutTimestamps) {
  auto range = [](int correlation, const char* duration_arg) {
    return R"json({"ph": "X", "cat": "cuda_profiler_range", "name": "k", "ts": )json" + std::to_string(correlation) +
           R"json(, "dur": 500, "args": {"correlation": )json" + std::to_string(correlation) +
           R"json(, "device": 1, "dram__bytes_read.sum": 64, "dram__bytes_write.sum": 36)json" + duration_arg + "}}";
  };
  for (const char* untimed : {"", "0", "3"}) {
    Profile profile;
    if (*untimed != '\0') profile.metadata.attributes["kraken_cupti_records_without_timestamps"] = untimed;
    EventParser parser(&profile);
    ParseOne(parser, range(10, R"json(, "gpu__time_duration.sum": 2500)json"));
    ParseOne(parser, range(11, ""));
    ParseOne(parser, range(12, R"json(, "gpu__time_duration.sum": 70)json"));
    ParseOne(parser, R"json({"ph": "X", "cat": "kernel", "name": "k", "ts": 12, "dur": 3,
      "args": {"device": 1, "stream": 7, "correlation": 12}})json");
    ParseOne(parser, range(13, R"json(, "gpu__time_duration.sum": 90)json"));
    ParseOne(parser, range(14, R"json(, "gpu__time_duration.sum": 90)json"));
    parser.Finish();
    if (std::string(untimed) != "3") {
      EXPECT_EQ(profile.kernels.size(), 1u) << untimed;  // the traced one only
      EXPECT_EQ(profile.import_counters.count("kineto_kernels_from_counter_ranges"), 0u);
      continue;
    }
    ASSERT_EQ(profile.kernels.size(), 4u);  // the traced kernel and ranges 10, 11, 13
    EXPECT_EQ(profile.import_counters["kineto_kernels_from_counter_ranges"], 3);
    EXPECT_EQ(profile.import_counters["kineto_kernels_from_counter_ranges_without_duration"], 1);
    const Kernel& from_range = profile.kernels[0];  // sorted by start: range 10 at 10 us
    EXPECT_EQ(from_range.correlation_id, 10);
    EXPECT_EQ(from_range.start_ns, 10'000);
    EXPECT_EQ(from_range.duration_ns, 2500);
    EXPECT_EQ(from_range.device, 1);
    EXPECT_EQ(profile.Name(from_range.name), "k");
    ASSERT_GE(from_range.counters_index, 0);
    EXPECT_DOUBLE_EQ(profile.kernel_counters[static_cast<size_t>(from_range.counters_index)].dram_bytes.value_or(-1),
                     100);
    EXPECT_EQ(profile.kernels[1].correlation_id, 11);
    EXPECT_EQ(profile.kernels[1].duration_ns, 0);
    EXPECT_EQ(profile.kernels[2].correlation_id, 12);
    EXPECT_EQ(profile.kernels[2].duration_ns, 3000);  // its own record's
    EXPECT_EQ(profile.kernels[3].correlation_id, 13);
  }
}

// kraken's CUPTI tracer writes each device's outstanding CUDA allocations as counter events
// (pid: the device); other counter events stay ignored, and bad values are counted.
TEST(EventParserTest, CudaMemoryCounterEventsBecomeOneSeriesPerDevice) {
  Profile profile;
  EventParser parser(&profile);
  for (const char* event : {
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":0,"tid":0,"ts":3.000,"args":{"bytes":1500}})json",
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":1,"tid":0,"ts":2.000,"args":{"bytes":300}})json",
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":0,"tid":0,"ts":1.000,"args":{"bytes":1000}})json",
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":0,"tid":0,"ts":4.000,"args":{"bytes":-5}})json",
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":0,"tid":0,"ts":5.000,"args":{"bytes":"lots"}})json",
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":"host","tid":0,"ts":6.000,"args":{"bytes":1}})json",
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":0,"tid":0,"ts":7.000})json",
           R"json({"ph":"C","cat":"cuda_memory","name":"CUDA device memory","pid":0,"tid":0,"args":{"bytes":1}})json",
           R"json({"ph":"C","name":"Memory","pid":0,"tid":0,"ts":1.000,"args":{"bytes":1}})json",
       })
    ParseOne(parser, event);
  parser.Finish();
  ASSERT_EQ(profile.series.size(), 2u);
  for (const Series& s : profile.series) {
    EXPECT_EQ(s.metric, Metric::kCudaAllocatedBytes);
    EXPECT_EQ(s.source_name, "CUDA device memory");
  }
  const Series& gpu0 = profile.series[0].entity.gpu_index == 0 ? profile.series[0] : profile.series[1];
  const Series& gpu1 = profile.series[0].entity.gpu_index == 0 ? profile.series[1] : profile.series[0];
  ASSERT_EQ(gpu0.samples.size(), 2u);
  EXPECT_EQ(gpu0.samples[0].time_ns, 1000);  // sorted by time
  EXPECT_EQ(gpu0.samples[0].value, 1000);
  EXPECT_EQ(gpu0.samples[1].value, 1500);
  ASSERT_EQ(gpu1.entity.gpu_index, 1);
  ASSERT_EQ(gpu1.samples.size(), 1u);
  EXPECT_EQ(gpu1.samples[0].value, 300);
  EXPECT_EQ(profile.import_counters["kineto_cuda_memory_bad_values"], 4);
  EXPECT_EQ(profile.import_counters["kineto_events_missing_timestamp"], 1);
  EXPECT_EQ(profile.import_counters["kineto_counter_events_ignored"], 1);
}

}  // namespace
}  // namespace kraken::kineto
