// Merging the traces `kraken profile --kernels` finds: real PyTorch-profiler traces of two
// processes (one on a relative clock with baseTimeNanoseconds, one on absolute time), one
// cut by a kill -9 and one that records why it is empty.
#include "profiling/kernel_capture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/byte_stream.h"
#include "base/testing/test_data.h"

namespace kraken::profiling {
namespace {

std::string Decompressed(const std::string& relative) {
  auto file = OpenFileStream(testing::DataPath(relative));
  EXPECT_TRUE(file.ok());
  auto all = ReadAll(*MakeGzipStream(std::move(*file)));
  EXPECT_TRUE(all.ok());
  return all.ok() ? *all : "";
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(KernelCaptureTest, TracesOfAllProcessesAreMergedOnUnixTime) {
  std::string dir = testing::MakeTempDir("kernel_capture");
  Write(dir + "/kernels_100.json", Decompressed("kineto/hta/triton_example/triton_example.json.gz"));
  Write(dir + "/kernels_200.json", Decompressed("kineto/hta/critical_path/simple_add/"
                                                "benchmark_result_493459_1694039959_trace.json.gz"));
  Write(dir + "/kernels_300.json",
        "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1000000000, \"incrementalEvents\": true, \"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":2.000,\"dur\":0.250}\n"
        ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"cut her");
  Write(dir + "/kernels_350.json",
        "{\"schemaVersion\": 1, \"pid\": 350, \"baseTimeNanoseconds\": 2000000000, \"traceEvents\": [\n"
        "{\"ph\":\"C\",\"cat\":\"cuda_memory\",\"name\":\"CUDA device memory\",\"pid\":1,\"tid\":0,\"ts\":3.000,"
        "\"args\":{\"bytes\":4096}}\n]}");
  Write(dir + "/kernels_400.json",
        "{\"schemaVersion\": 1, \"traceEvents\": [],\n \"kraken_cupti_error\": \"CUPTI cannot record kernels: "
        "CUPTI_ERROR_NOT_COMPATIBLE (...)\"}");
  Write(dir + "/notes.txt", "not a trace");
  KernelCaptureSetup setup{.injection_library = "", .trace_dir = dir, .remove_after_import = false};
  Profile events;
  KernelCaptureSummary summary = CollectKernelTraces(setup, &events);

  ASSERT_EQ(summary.files.size(), 5u);
  EXPECT_EQ(summary.kernels, 1 + 79 + 1);
  EXPECT_EQ(summary.cut_traces, 1);
  ASSERT_EQ(summary.problems.size(), 1u);
  EXPECT_EQ(summary.problems[0], "kernels_400.json: CUPTI cannot record kernels: CUPTI_ERROR_NOT_COMPATIBLE (...)");
  EXPECT_TRUE(summary.note.empty());
  EXPECT_TRUE(summary.kept);
  // The cut trace's kernel: 1 s base + 2 us, first by time; the Triton kernel of the
  // relative-clock trace lands at its base + ts.
  ASSERT_EQ(events.kernels.size(), 81u);
  EXPECT_EQ(events.kernels[0].start_ns, 1'000'002'000);
  EXPECT_EQ(events.kernels[0].duration_ns, 250);
  bool found_triton = false;
  for (const Kernel& k : events.kernels)
    if (events.Name(k.name) == "triton_poi_fused_add_cos_sin_0") {
      EXPECT_EQ(k.start_ns, 1'727'743'122'000'000'000 + 2'413'669'097'444'592);
      found_triton = true;
    }
  EXPECT_TRUE(found_triton);
  for (size_t i = 1; i < events.kernels.size(); ++i) EXPECT_LE(events.kernels[i - 1].start_ns, events.kernels[i].start_ns);
  int64_t kernel_ns = 0;
  for (const Kernel& k : events.kernels) kernel_ns += k.duration_ns;
  EXPECT_DOUBLE_EQ(summary.kernel_time_s, static_cast<double>(kernel_ns) / 1e9);
  EXPECT_EQ(events.metadata.attributes.at("kernel_traces"), "5");
  // The CUDA device memory of a trace: its series, on Unix time, marked with the process.
  ASSERT_EQ(events.series.size(), 1u);
  EXPECT_EQ(events.series[0].metric, Metric::kCudaAllocatedBytes);
  EXPECT_EQ(events.series[0].entity.gpu_index, 1);
  EXPECT_EQ(events.series[0].entity.pid, 350);
  ASSERT_EQ(events.series[0].samples.size(), 1u);
  EXPECT_EQ(events.series[0].samples[0].time_ns, 2'000'003'000);
  EXPECT_EQ(events.series[0].samples[0].value, 4096);
  EXPECT_EQ(events.metadata.attributes.at("kernel_traces_cut"), "1");
  EXPECT_TRUE(std::filesystem::exists(dir + "/kernels_100.json"));
}

TEST(KernelCaptureTest, AnEmptyTemporaryFolderSaysNoProcessStartedCudaAndIsRemoved) {
  std::string dir = testing::MakeTempDir("kernel_capture_empty");
  KernelCaptureSetup setup{.injection_library = "", .trace_dir = dir, .remove_after_import = true};
  Profile events;
  KernelCaptureSummary summary = CollectKernelTraces(setup, &events);
  EXPECT_EQ(summary.kernels, 0);
  EXPECT_FALSE(summary.kept);
  EXPECT_EQ(summary.note.rfind("no process of the command initialized CUDA", 0), 0u) << summary.note;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace kraken::profiling
