// A session's kernel_capture in a process "started with the tracer": no GPU here, so the
// tracer's trace of this process is stood in for by kraken's real CUPTI trace of a ResNet-50
// training run on an H100 (examples/nvidia-h100-80gb-hbm3), its clock moved to now, at the
// place the tracer's settings name; NVML is the replay library on the recorded H100.
#include "app/session_kernels.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <simdjson.h>

#include "app/profile_session.h"
#include "base/byte_stream.h"
#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "collectors/cupti/tracer_config.h"
#include "importers/registry.h"

namespace kraken::app {
namespace {

// The ResNet-50 trace: its first kernel starts 6038202.656 us after its base time, its last
// 1.84 s later; 18421 kernels (the trace's own kraken_cupti_kernels).
constexpr int64_t kFirstKernelOffsetNs = 6'038'202'656;
constexpr int64_t kKernelSpanNs = 1'840'018'807 + 1'000'000;  // to the last kernel's start, plus its run
constexpr int64_t kTraceKernels = 18421;

TimeNs WallNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ResnetTraceText() {
  auto file = OpenFileStream(testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/resnet50-train.cupti.json.gz");
  EXPECT_TRUE(file.ok());
  auto all = ReadAll(*MakeGzipStream(std::move(*file)));
  EXPECT_TRUE(all.ok());
  return all.ok() ? *all : "";
}

// The run document's string at `pointer` (a JSON pointer), "" when absent.
std::string RunText(const std::string& run, const char* pointer) {
  simdjson::dom::parser parser;
  std::string_view text;
  return parser.parse(run).at_pointer(pointer).get(text) == simdjson::SUCCESS ? std::string(text) : "";
}

// The run document's integer at `pointer`, -1 when absent.
int64_t RunNumber(const std::string& run, const char* pointer) {
  simdjson::dom::parser parser;
  int64_t value = -1;
  return parser.parse(run).at_pointer(pointer).get(value) == simdjson::SUCCESS ? value : -1;
}

// Writes the trace at `path` with its first kernel at `first_kernel_ns` (Unix time).
void WriteResnetTrace(const std::string& path, TimeNs first_kernel_ns) {
  static const std::string text = ResnetTraceText();
  const std::string key = "\"baseTimeNanoseconds\": ";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  const size_t end = text.find(',', at);
  std::ofstream(path) << text.substr(0, at + key.size()) << first_kernel_ns - kFirstKernelOffsetNs
                      << text.substr(end);
}

// The environment of a process started with the tracer, writing into `trace_dir`.
class TracedProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_dir_ = testing::MakeTempDir("session_kernels");
    ::setenv("CUDA_INJECTION64_PATH", "/opt/kraken/lib/libkraken_cupti.so", 1);
    ::setenv("KRAKEN_CUPTI_OUTPUT", (trace_dir_ + "/").c_str(), 1);
    ::setenv("KRAKEN_CUPTI_FLUSH_MS", "10", 1);
    ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100.nvml").c_str(), 1);
  }
  void TearDown() override {
    for (const char* name : {"CUDA_INJECTION64_PATH", "KRAKEN_CUPTI_OUTPUT", "KRAKEN_CUPTI_FLUSH_MS"})
      ::unsetenv(name);
  }
  std::string TracePath() const { return trace_dir_ + "/kraken_cupti_" + std::to_string(getpid()) + ".json"; }
  static SessionSettings Settings() {
    SessionSettings settings;
    settings.nvml_library = KRAKEN_NVML_REPLAY_LIBRARY;
    settings.interval = "20ms";
    settings.store = false;
    settings.kernel_capture = true;
    return settings;
  }
  std::string trace_dir_;
};

TEST_F(TracedProcess, TheTracersKernelsOfTheSessionAreInItsProfileAndDecideTheWorkloadType) {
  auto session = ProfilingSession::Start(Settings());
  ASSERT_TRUE(session.ok()) << session.status().message();
  const TimeNs first_kernel_ns = WallNowNs() + 5'000'000;  // after the session's start
  WriteResnetTrace(TracePath(), first_kernel_ns);
  ASSERT_TRUE((*session)->Step().ok());  // the caller's step, not the trace's 20 ProfilerSteps
  std::this_thread::sleep_until(std::chrono::system_clock::time_point(
      std::chrono::nanoseconds(first_kernel_ns + kKernelSpanNs + 10'000'000)));
  auto run = (*session)->Stop();
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(RunText(*run, "/workload_type/type"), "training") << *run;
  EXPECT_EQ(RunNumber(*run, "/kernels/kernels"), kTraceKernels);
  EXPECT_EQ(RunText(*run, "/kernels/files/0"), TracePath());
  EXPECT_EQ(RunText(*run, "/kernels/problems/0"), "");  // none
  EXPECT_GT(RunNumber(*run, "/passes"), 0);
  // The exported profile read back: the NVML series and the trace's timeline together.
  auto profile = (*session)->ProfileJson();
  ASSERT_TRUE(profile.ok());
  const std::string file = trace_dir_ + "/session.json";
  std::ofstream(file) << *profile;
  auto imported = ImportFile(BuiltinImporters(), file, ImportOptions{});
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  ASSERT_EQ(imported->size(), 1u);
  const Profile& stored = imported->front();
  EXPECT_EQ(static_cast<int64_t>(stored.kernels.size()), kTraceKernels);
  EXPECT_FALSE(stored.series.empty());
  EXPECT_EQ(stored.steps.size(), 1u);
  EXPECT_EQ(stored.metadata.attributes.at("kernel_traces"), "1");
  // The first copy (33 ms before the first kernel) precedes the session: not its own.
  EXPECT_GT(stored.memory_ops.size(), 0u);
  EXPECT_LT(stored.memory_ops.size(), 481u + 1354u);
  for (const Kernel& k : stored.kernels) ASSERT_GE(k.start_ns, first_kernel_ns - 1000);
}

TEST_F(TracedProcess, KernelsFromBeforeTheSessionAreNotItsOwn) {
  WriteResnetTrace(TracePath(), WallNowNs() - 10'000'000'000);  // a long-running process's past
  auto session = ProfilingSession::Start(Settings());
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto run = (*session)->Stop();
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(RunNumber(*run, "/kernels/kernels"), 0);
  EXPECT_EQ(RunText(*run, "/kernels/note"), "the trace of this process holds 18421 kernels, none of them while the "
                                            "session ran");
}

TEST_F(TracedProcess, WithoutATraceTheSessionKeepsItsSamplesAndSaysSo) {
  auto session = ProfilingSession::Start(Settings());
  ASSERT_TRUE(session.ok()) << session.status().message();
  while ((*session)->passes_taken() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto run = (*session)->Stop();
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(RunText(*run, "/kernels/problems/0"), "no trace at " + TracePath());
  EXPECT_EQ(RunText(*run, "/kernels/note"), "the CUPTI tracer wrote no trace of this process at " + TracePath() +
                                                " (no CUDA work in this process yet?); the profile has NVML samples only");
  EXPECT_GE(RunNumber(*run, "/passes"), 2);
  EXPECT_EQ(RunText(*run, "/workload_type/reason").find("traced kernels"), std::string::npos);  // NVML's verdict
  auto profile = (*session)->ProfileJson();
  ASSERT_TRUE(profile.ok());
  simdjson::dom::parser parser;
  simdjson::dom::array series;
  ASSERT_EQ(parser.parse(*profile)["series"].get(series), simdjson::SUCCESS);
  EXPECT_GT(series.size(), 0u);  // the NVML samples are kept
}

TEST(SessionKernelTracer, WithoutTheTracerKernelCaptureIsRefusedWithHowToStartIt) {
  std::map<std::string, std::string> env;
  EnvironmentReader getenv = [&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  Status none = CheckKernelTracerInjected(getenv);
  EXPECT_EQ(none.code(), StatusCode::kUnsupported);
  EXPECT_NE(none.message().find("this process was started without it; start it under kraken profile --kernels -- CMD"),
            std::string::npos)
      << none.message();
  env["CUDA_INJECTION64_PATH"] = "/opt/nsight/libToolsInjection64.so";
  EXPECT_NE(CheckKernelTracerInjected(getenv).message().find(
                "(CUDA_INJECTION64_PATH names /opt/nsight/libToolsInjection64.so, not kraken's tracer)"),
            std::string::npos);
  env["CUDA_INJECTION64_PATH"] = "/build/src/cli/libkraken_cupti.so";
  EXPECT_TRUE(CheckKernelTracerInjected(getenv).ok());
}

TEST(SessionKernelTracer, TheTraceIsWhereTheTracerWritesIt) {
  std::map<std::string, std::string> env{{"KRAKEN_CUPTI_OUTPUT", "/tmp/k_%p_%h.json"}, {"KRAKEN_CUPTI_FLUSH_MS", "5"}};
  EnvironmentReader getenv = [&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  KernelTraceLocation trace = LocateKernelTrace(getenv, 42);
  // The tracer's own function for the same settings, and its own floor for the flush.
  const cupti::TracerConfig config = cupti::ReadTracerConfig(getenv);
  EXPECT_EQ(trace.path, cupti::ResolveOutputPath(config.output, 42, cupti::HostName(), [](auto&) { return false; }));
  EXPECT_EQ(trace.path, "/tmp/k_42_" + cupti::HostName() + ".json");
  EXPECT_EQ(trace.flush_interval_ms, 1000);  // 5 ms is below the tracer's floor: its default
  env.clear();
  EXPECT_EQ(LocateKernelTrace(getenv, 7).path,
            std::filesystem::current_path().string() + "/kraken_cupti_7.json");  // the tracer's default
}

TEST(SessionKernelTracer, OnlyEventsOverlappingTheWindowAreKept) {
  Profile events;
  for (TimeNs start : {0, 90, 100, 150, 200, 201}) {
    Kernel k;
    k.start_ns = start;
    k.duration_ns = 10;
    events.kernels.push_back(k);
    MemoryOp m;
    m.start_ns = start;
    m.duration_ns = 5;
    events.memory_ops.push_back(m);
  }
  Series& memory = events.series.emplace_back();
  memory.metric = Metric::kCudaAllocatedBytes;
  memory.samples = {{10, 1.0}, {50, 9.0}, {95, 2.0}, {120, 3.0}, {200, 4.0}, {250, 8.0}};
  KeepTimelineWithin(100, 200, &events);
  std::vector<double> levels;
  for (const Sample& s : events.series[0].samples) levels.push_back(s.value);
  EXPECT_EQ(levels, (std::vector<double>{2.0, 3.0, 4.0}));  // 2 held when the window began
  std::vector<TimeNs> kept;
  for (const Kernel& k : events.kernels) kept.push_back(k.start_ns);
  EXPECT_EQ(kept, (std::vector<TimeNs>{90, 100, 150, 200}));  // 90 runs into the window
  EXPECT_EQ(events.memory_ops.size(), 3u);                     // 90 + 5 ends before it
}

// --kernel-counters in a session: the count of kernels with counters is that of the kernels
// the window kept, not of the whole trace.
TEST(SessionKernelTracer, KernelsWithCountersAreCountedInTheWindowOnly) {
  Profile events;
  for (TimeNs start : {0, 100, 150}) {
    Kernel k;
    k.start_ns = start;
    k.duration_ns = 10;
    k.counters_index = static_cast<int32_t>(events.kernel_counters.size());
    events.kernel_counters.emplace_back();
    events.kernels.push_back(k);
  }
  profiling::KernelCaptureSummary summary;
  profiling::CountTimeline(events, &summary);
  EXPECT_EQ(summary.kernels_with_counters, 3);
  KeepTimelineWithin(100, 200, &events);
  profiling::CountTimeline(events, &summary);
  EXPECT_EQ(summary.kernels, 2);
  EXPECT_EQ(summary.kernels_with_counters, 2);
}

}  // namespace
}  // namespace kraken::app
