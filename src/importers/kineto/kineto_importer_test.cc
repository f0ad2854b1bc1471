// Golden tests of the Kineto importer on the real traces in shared/data/kineto. The
// expected counts were taken from the files with an independent reader (Python's json).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "base/byte_stream.h"
#include "base/testing/test_data.h"
#include "importers/common/json_stream_walker.h"
#include "importers/registry.h"

namespace kraken {
namespace {

Profile ImportOne(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return Profile();
  EXPECT_EQ(result->size(), 1u);
  return std::move((*result)[0]);
}

size_t Count(const Profile& p, MemoryOpKind kind) {
  return static_cast<size_t>(
      std::count_if(p.memory_ops.begin(), p.memory_ops.end(), [&](const MemoryOp& m) { return m.kind == kind; }));
}

size_t CountCpu(const Profile& p, CpuOpCategory category) {
  return static_cast<size_t>(
      std::count_if(p.cpu_ops.begin(), p.cpu_ops.end(), [&](const CpuOp& op) { return op.category == category; }));
}

TEST(KinetoImporterTest, EveryTraceInTheCorpusImports) {
  int traces = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::DataDir() + "/kineto")) {
    std::string path = entry.path().string();
    if (!entry.is_regular_file() || path.find("/reference/") != std::string::npos) continue;
    if (!(path.ends_with(".json") || path.ends_with(".json.gz") || path.ends_with(".tar.gz"))) continue;
    auto result = ImportFile(BuiltinImporters(), path);
    ASSERT_TRUE(result.ok()) << result.status().message();
    for (const auto& profile : *result) {
      EXPECT_EQ(profile.metadata.format, "kineto") << path;
      EXPECT_EQ(profile.import_counters.count("kineto_malformed_events"), 0u) << path;
    }
    ++traces;
  }
  EXPECT_GE(traces, 39);
}

TEST(KinetoImporterTest, LegacyTbPluginResnetTrace) {
  Profile p = ImportOne("kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  EXPECT_EQ(p.kernels.size(), 8772u);
  EXPECT_EQ(Count(p, MemoryOpKind::kMemcpy), 12u);
  EXPECT_EQ(Count(p, MemoryOpKind::kMemset), 312u);
  EXPECT_EQ(p.cpu_ops.size(), 23646u);
  EXPECT_EQ(p.runtime_calls.size(), 11923u);
  ASSERT_EQ(p.steps.size(), 6u);
  EXPECT_EQ(p.steps.front().step_number, 5);
  EXPECT_EQ(p.steps.back().step_number, 10);
  EXPECT_EQ(p.steps.front().start_ns, 1623142623460172000);
  EXPECT_EQ(p.steps.front().duration_ns, 176078000);
  // The first kernel, exactly as written: ts 1623142623531625 µs, dur 2 µs, stream 7.
  const Kernel& first = p.kernels.front();
  EXPECT_EQ(p.Name(first.name), "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)");
  EXPECT_EQ(first.start_ns, 1623142623531625000);
  EXPECT_EQ(first.duration_ns, 2000);
  EXPECT_EQ(first.stream, 7);
  EXPECT_EQ(first.correlation_id, 34441);
  EXPECT_EQ(first.est_achieved_occupancy_pct, 8);
  ASSERT_EQ(p.devices.size(), 4u);
  EXPECT_EQ(p.devices[0].name, "Tesla V100-DGXS-32GB");
  EXPECT_EQ(p.devices[0].sm_count, 80);
  EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kNvidia);
}

TEST(KinetoImporterTest, NanosecondResolutionV100TrainingTrace) {
  Profile p = ImportOne("kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  EXPECT_EQ(p.kernels.size(), 4350u);
  EXPECT_EQ(Count(p, MemoryOpKind::kMemcpy), 1600u);
  EXPECT_EQ(Count(p, MemoryOpKind::kMemset), 145u);
  EXPECT_EQ(CountCpu(p, CpuOpCategory::kGpuUserAnnotation), 15u);
  EXPECT_EQ(CountCpu(p, CpuOpCategory::kUserAnnotation), 70u);
  EXPECT_EQ(CountCpu(p, CpuOpCategory::kOperator), 23910u);
  EXPECT_EQ(p.runtime_calls.size(), 15329u);
  // Exact from the text "1712195495505582.988" (a double would round it to ...583.0).
  EXPECT_EQ(p.kernels.front().start_ns, 1712195495505582988);
  EXPECT_EQ(p.kernels.front().duration_ns, 4928);
  EXPECT_EQ(p.kernels.back().start_ns, 1712195495985358440);
  EXPECT_EQ(p.kernels.back().duration_ns, 253727);
  EXPECT_EQ(p.steps.size(), 5u);  // ProfilerStep#101-105
  EXPECT_EQ(p.metadata.rank, 0);
}

TEST(KinetoImporterTest, NcclCollectiveArgsOnTheA100Trace) {
  Profile p = ImportOne("kineto/hta/nccl_parser_config/nccl_data.json.gz");
  EXPECT_EQ(p.kernels.size(), 2700u);
  int nccl = 0;
  const Kernel* longest = nullptr;
  for (const Kernel& k : p.kernels) {
    if (p.Name(k.name).find("ncclKernel") == std::string_view::npos) continue;
    ++nccl;
    if (longest == nullptr || k.duration_ns > longest->duration_ns) longest = &k;
  }
  EXPECT_EQ(nccl, 21);
  ASSERT_NE(longest, nullptr);
  EXPECT_EQ(longest->duration_ns, 5993392);
  EXPECT_EQ(longest->correlation_id, 56027);
  ASSERT_GE(longest->collective_index, 0);
  const CollectiveInfo& c = p.collectives[longest->collective_index];
  EXPECT_EQ(c.collective_name, "allreduce");
  EXPECT_EQ(c.in_msg_nelems, 2049000);
  EXPECT_EQ(c.out_msg_nelems, 2049000);
  EXPECT_EQ(c.process_group_name, "0");
  EXPECT_EQ(c.process_group_description, "default_pg");
  EXPECT_EQ(c.process_group_ranks, "[0, 1]");
  EXPECT_EQ(p.metadata.world_size, 2);
  EXPECT_EQ(p.metadata.distributed_backend, "nccl");
}

TEST(KinetoImporterTest, MtiaDeviceOpsSplitIntoKernelsAndDma) {
  Profile p = ImportOne("kineto/hta/mtia_trace_single_rank/mtia_rank_0.json.gz");
  EXPECT_EQ(p.kernels.size(), 25814u - 22361u);
  EXPECT_EQ(Count(p, MemoryOpKind::kMemcpy), 22361u);
  EXPECT_EQ(p.runtime_calls.size(), 3453u);
  EXPECT_EQ(p.import_counters["kineto_events"], 455739);
  EXPECT_EQ(p.import_counters["kineto_metadata_events"], 310046);
  EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kMeta);
  size_t muls = std::count_if(p.kernels.begin(), p.kernels.end(), [&](const Kernel& k) {
    return p.Name(k.name) == "customized_fba_mul_const-dtype_Float";
  });
  EXPECT_EQ(muls, 957u);
}

TEST(KinetoImporterTest, RocmTraceWithMetadataBeforeTheEvents) {
  Profile p = ImportOne("kineto/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  EXPECT_EQ(p.kernels.size(), 1516u);
  EXPECT_EQ(p.runtime_calls.size(), 1707u);
  EXPECT_EQ(p.import_counters["kineto_python_functions_skipped"], 4266);
  EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kAmd);
  ASSERT_FALSE(p.devices.empty());
  EXPECT_EQ(p.devices[0].sm_count, 304);
  // profile_memory=True: allocator samples become device-memory series.
  ASSERT_FALSE(p.series.empty());
  EXPECT_EQ(p.series[0].metric, Metric::kAllocatorAllocatedBytes);
}

TEST(KinetoImporterTest, IntegersBeyondInt64AndCpuOnlyTraces) {
  Profile big = ImportOne("kineto/hta/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz");
  EXPECT_EQ(big.kernels.size(), 1u);
  EXPECT_EQ(big.cpu_ops.size(), 1u);
  Profile cpu = ImportOne("kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  EXPECT_TRUE(cpu.kernels.empty());
  EXPECT_EQ(cpu.metadata.rank, 34);
  EXPECT_EQ(cpu.metadata.world_size, 300);
  EXPECT_EQ(cpu.metadata.distributed_backend, "gloo");
  EXPECT_EQ(cpu.metadata.attributes["pg_count"], "10");
}

TEST(KinetoImporterTest, TritonTraceKeepsItsBaseTime) {
  Profile p = ImportOne("kineto/hta/triton_example/triton_example.json.gz");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.Name(p.kernels[0].name), "triton_poi_fused_add_cos_sin_0");
  EXPECT_EQ(p.kernels[0].duration_ns, 1760);
  EXPECT_EQ(p.metadata.base_time_ns, 1727743122000000000);
  // HTA's assertion: trace start = 2413669096090100 ns + baseTimeNanoseconds.
  ASSERT_FALSE(p.cpu_ops.empty());
  EXPECT_EQ(p.cpu_ops.front().start_ns, 2413669096090100);
}

TEST(KinetoImporterTest, CuptiRangeProfilerCounters) {
  Profile p = ImportOne("kineto/hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  ASSERT_EQ(p.profiler_ranges.size(), 77u);
  EXPECT_TRUE(p.kernels.empty());
  std::vector<const ProfilerRange*> ranges;
  for (const auto& r : p.profiler_ranges) ranges.push_back(&r);
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const ProfilerRange* a, const ProfilerRange* b) { return a->start_ns < b->start_ns; });
  // HTA's test: the 6th range by time is fft2d_r2c_32x32 with 86114304 fadd.
  const ProfilerRange& sixth = *ranges[5];
  EXPECT_NE(p.Name(sixth.name).find("fft2d_r2c_32x32"), std::string_view::npos);
  EXPECT_EQ(sixth.raw_counters.at("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"), 86114304);
  EXPECT_EQ(sixth.raw_counters.size(), 9u);
}

TEST(KinetoImporterTest, TruncatedTraceIsAnErrorWithPosition) {
  std::string text = testing::ReadFileOrDie(testing::DataPath("kineto/hta/call_stack/backward_thread.json"));
  auto result = ImportBuffer(BuiltinImporters(), "cut.json", text.substr(0, text.size() / 2));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(result.status().message().rfind("cut.json: byte ", 0), 0u) << result.status().message();
  EXPECT_NE(result.status().message().find("truncated"), std::string::npos);
}

// An incrementally written trace (kraken's CUPTI tracer) cut anywhere after its event array
// began: the events complete before the cut are imported and the cut is counted. Built from
// the real events of a corpus trace, one per line as the tracer writes them. (The events are
// split with the importer's own walker: this target does not link simdjson::simdjson, so a
// simdjson DOM parser here would lack its SIMDJSON_THREADS_ENABLED and have another layout
// than the importer's: an ODR violation that the sanitizer build catches.)
// A stream that says less is left than there is: a trace the tracer is still appending to,
// whose size was taken when the import began.
class UnderstatedStream final : public ByteStream {
 public:
  explicit UnderstatedStream(std::string data) : inner_(MakeMemoryStream(std::move(data))) {}
  Result<size_t> Read(char* out, size_t size) override { return inner_->Read(out, size); }
  uint64_t source_offset() const override { return inner_->source_offset(); }
  std::optional<uint64_t> size_left() const override { return 10; }

 private:
  std::unique_ptr<ByteStream> inner_;
};

// The walker sizes its first buffer from the stream's size_left(); an input longer than that
// is still read whole, element for element.
TEST(KinetoImporterTest, AStreamLongerThanItSaidIsReadWhole) {
  std::string text = testing::ReadFileOrDie(testing::DataPath("kineto/hta/call_stack/backward_thread.json"));
  auto walk = [](ByteStream& stream) {
    std::vector<std::string> events;
    JsonStreamWalker walker(stream, "traceEvents");
    JsonStreamWalker::Callbacks callbacks;
    callbacks.on_element = [&](std::string_view event, uint64_t) { events.emplace_back(event); };
    callbacks.on_member = [](std::string_view, std::string_view) { return Status::Ok(); };
    EXPECT_TRUE(walker.Walk(callbacks).ok());
    return events;
  };
  auto honest = MakeMemoryStream(text);
  UnderstatedStream understated(text);
  std::vector<std::string> expected = walk(*honest);
  EXPECT_EQ(expected.size(), 7u);
  EXPECT_EQ(walk(understated), expected);
}

TEST(KinetoImporterTest, IncrementalTraceCutAnywhereKeepsTheCompleteEvents) {
  std::string original = testing::ReadFileOrDie(testing::DataPath("kineto/hta/call_stack/backward_thread.json"));
  std::vector<std::string> events;
  auto stream = MakeMemoryStream(original);
  JsonStreamWalker walker(*stream, "traceEvents");
  JsonStreamWalker::Callbacks callbacks;
  callbacks.on_element = [&](std::string_view event, uint64_t) { events.emplace_back(event); };
  callbacks.on_member = [](std::string_view, std::string_view) { return Status::Ok(); };
  ASSERT_TRUE(walker.Walk(callbacks).ok());
  std::string text = "{\"schemaVersion\": 1, \"incrementalEvents\": true,\n\"traceEvents\": [\n";
  std::vector<size_t> event_ends;  // offset one past each event
  std::vector<bool> is_kernel;
  for (const std::string& event : events) {
    if (!event_ends.empty()) text += ",\n";
    for (char c : event) text.push_back(c == '\n' ? ' ' : c);  // one line per event
    event_ends.push_back(text.size());
    is_kernel.push_back(event.find("\"cat\": \"kernel\"") != std::string::npos);
  }
  ASSERT_GE(event_ends.size(), 5u);
  ASSERT_EQ(std::count(is_kernel.begin(), is_kernel.end(), true), 1);  // the CUTLASS kernel
  const size_t array_start = text.find('[') + 1;
  text += "\n]}";
  for (size_t cut = array_start; cut < text.size() - 2; ++cut) {
    auto result = ImportBuffer(BuiltinImporters(), "cut.json", text.substr(0, cut));
    ASSERT_TRUE(result.ok()) << "cut at " << cut << ": " << result.status().message();
    const Profile& p = (*result)[0];
    size_t complete = static_cast<size_t>(std::upper_bound(event_ends.begin(), event_ends.end(), cut) - event_ends.begin());
    size_t kernels = static_cast<size_t>(std::count(is_kernel.begin(), is_kernel.begin() + complete, true));
    EXPECT_EQ(p.import_counters.at("kineto_events"), static_cast<int64_t>(complete)) << cut;
    EXPECT_EQ(p.kernels.size(), kernels) << cut;
    EXPECT_EQ(p.import_counters.at("kineto_trace_cut"), 1) << cut;
    bool partial = complete < event_ends.size() && cut > (complete == 0 ? array_start : event_ends[complete - 1]) + 2;
    if (partial) {
      EXPECT_GT(p.import_counters.count("kineto_cut_partial_event_bytes"), 0u) << cut;
    }
  }
  // The whole document: no cut counted; and without the marker a cut stays an error.
  auto whole = ImportBuffer(BuiltinImporters(), "whole.json", text);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ((*whole)[0].import_counters.count("kineto_trace_cut"), 0u);
  EXPECT_EQ((*whole)[0].import_counters.at("kineto_events"), static_cast<int64_t>(event_ends.size()));
  std::string unmarked = text;
  unmarked.replace(unmarked.find("\"incrementalEvents\": true"), 25, "\"incrementalEvents\":false");
  EXPECT_FALSE(ImportBuffer(BuiltinImporters(), "cut.json", unmarked.substr(0, event_ends[2])).ok());
}

TEST(KinetoImporterTest, JsonWithoutTraceEventsIsRejected) {
  auto result = ImportBuffer(BuiltinImporters(), "other.json", R"({"name": "not a trace", "values": [1, 2]})");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("no \"traceEvents\" array"), std::string::npos);
}

TEST(KinetoImporterTest, TrailingGarbageIsAnError) {
  auto result = ImportBuffer(BuiltinImporters(), "t.json", R"({"traceEvents": []} xx)");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("after the end"), std::string::npos);
}

}  // namespace
}  // namespace kraken
