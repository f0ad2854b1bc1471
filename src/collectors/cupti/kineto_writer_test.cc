// The incremental Kineto writer: exact number formatting, and files that kraken's kineto
// importer reads back whole, or up to the last complete event when the writer was stopped
// before its end. (Strict JSON validity is checked in kineto_writer_json_test.cc, a binary
// without the importers.)
#include "collectors/cupti/kineto_writer.h"

#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "importers/kineto/kineto_event_parser.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

Profile ImportWritten(const std::string& path) {
  auto result = ImportFile(BuiltinImporters(), path);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  return std::move((*result)[0]);
}

TraceEvent KernelEvent(std::string_view name, int64_t start_ns, int64_t duration_ns, int64_t stream, int64_t correlation) {
  TraceEvent e;
  e.category = "kernel";
  e.name = name;
  e.pid = 0;
  e.tid = stream;
  e.start_ns = start_ns;
  e.duration_ns = duration_ns;
  e.AddInt("device", 0);
  e.AddInt("stream", stream);
  e.AddInt("correlation", correlation);
  e.AddInt("registers per thread", 32);
  e.AddInt("shared memory", 4096);
  e.AddDim3("grid", 80, 2, 1);
  e.AddDim3("block", 256, 1, 1);
  e.flow = FlowPhase::kFinish;
  e.flow_id = correlation;
  return e;
}

TEST(KinetoWriterTest, MicrosecondsKeepEveryNanosecond) {
  std::string out;
  for (int64_t ns : {0L, 1L, 999L, 1000L, 1234567L, -1L, -1500L, 1'700'000'000'123'456'789L}) {
    out.clear();
    AppendMicros(out, ns);
    int64_t back = 0;
    ASSERT_TRUE(kineto::MicrosTextToNs(out, &back)) << out;
    EXPECT_EQ(back, ns) << out;
  }
  out.clear();
  AppendMicros(out, 1234567);
  EXPECT_EQ(out, "1234.567");
}

TEST(KinetoWriterTest, FinishedTraceImportsWithEveryField) {
  std::string path = testing::MakeTempDir("kineto_writer") + "/trace.json";
  std::string error;
  const int64_t base = 1'700'000'000'000'000'000;
  auto writer = KinetoTraceWriter::Open(path, base, {{"host_name", JsonString("gpu-node-1")}}, &error);
  ASSERT_NE(writer, nullptr) << error;
  writer->Emit(KernelEvent("void gemm<float>(float const*, int) \"quoted\"", base + 1'000'123, 2'500, 7, 41));
  writer->Emit(KernelEvent("elementwise", base + 5'000'000, 1'001, 13, 42));
  TraceEvent launch;
  launch.category = "cuda_runtime";
  launch.name = "cudaLaunchKernel";
  launch.pid = 4242;
  launch.tid = 4243;
  launch.start_ns = base + 990'000;
  launch.duration_ns = 5'000;
  launch.AddInt("correlation", 41);
  launch.flow = FlowPhase::kStart;
  launch.flow_id = 41;
  writer->Emit(launch);
  ASSERT_TRUE(writer->Flush());
  ASSERT_TRUE(writer->Finish({{"deviceProperties", "[{\"id\": 0, \"name\": \"H100\", \"numSms\": 132}]"}}));
  EXPECT_EQ(writer->events(), 3);

  Profile p = ImportWritten(path);
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.Name(p.kernels[0].name), "void gemm<float>(float const*, int) \"quoted\"");
  EXPECT_EQ(p.kernels[0].start_ns, 1'000'123);
  EXPECT_EQ(p.kernels[0].duration_ns, 2'500);
  EXPECT_EQ(p.kernels[0].stream, 7);
  EXPECT_EQ(p.kernels[0].correlation_id, 41);
  EXPECT_EQ(p.kernels[0].registers_per_thread, 32);
  EXPECT_EQ(p.kernels[0].shared_memory_bytes, 4096);
  EXPECT_EQ(p.kernels[0].grid, (Dim3{80, 2, 1}));
  EXPECT_EQ(p.kernels[0].block, (Dim3{256, 1, 1}));
  EXPECT_EQ(p.kernels[1].duration_ns, 1'001);
  ASSERT_EQ(p.runtime_calls.size(), 1u);
  EXPECT_EQ(p.runtime_calls[0].correlation_id, 41);
  EXPECT_EQ(p.runtime_calls[0].pid, 4242);
  EXPECT_EQ(p.metadata.base_time_ns, base);
  EXPECT_EQ(p.metadata.hostname, "gpu-node-1");
  EXPECT_EQ(p.import_counters.at("kineto_flow_events"), 3);
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].sm_count, 132);
}

TEST(KinetoWriterTest, UnfinishedTraceIsAReadablePrefix) {
  std::string path = testing::MakeTempDir("kineto_writer_cut") + "/trace.json";
  std::string error;
  {
    auto writer = KinetoTraceWriter::Open(path, 0, {}, &error);
    ASSERT_NE(writer, nullptr) << error;
    for (int i = 0; i < 100; ++i) writer->Emit(KernelEvent("k", 1000 * i, 500, 7, i + 1));
    ASSERT_TRUE(writer->Flush());
    // Destroyed without Finish: what a killed process leaves.
  }
  Profile p = ImportWritten(path);
  EXPECT_EQ(p.kernels.size(), 100u);
  EXPECT_EQ(p.import_counters.at("kineto_trace_cut"), 1);
  EXPECT_EQ(p.import_counters.count("kineto_cut_partial_event_bytes"), 0u);
}

TEST(KinetoWriterTest, MissingFoldersAreCreated) {
  std::string dir = testing::MakeTempDir("kineto_writer_folders");
  std::string path = dir + "/runs/job-7/trace.json";
  std::string error;
  auto writer = KinetoTraceWriter::Open(path, 0, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  ASSERT_TRUE(writer->Finish({}));
  EXPECT_EQ(ImportWritten(path).kernels.size(), 0u);
}

TEST(KinetoWriterTest, UnwritableFileIsAnErrorNamingIt) {
  // Under a regular file no folder can be made, even as root (CI runs as root).
  std::string dir = testing::MakeTempDir("kineto_writer_unwritable");
  std::string file = dir + "/a-file";
  {
    std::string error;
    auto blocker = KinetoTraceWriter::Open(file, 0, {}, &error);
    ASSERT_NE(blocker, nullptr) << error;
  }
  std::string error;
  auto writer = KinetoTraceWriter::Open(file + "/sub/trace.json", 0, {}, &error);
  EXPECT_EQ(writer, nullptr);
  EXPECT_NE(error.find(file + "/sub/trace.json: Not a directory"), std::string::npos) << error;
}

}  // namespace
}  // namespace kraken::cupti
