// The trace session with CUPTI's buffer protocol played by the test: buffers of real
// CUpti_ActivityKernel10 records handed over from several threads, the buffer limit, and
// what a traced process leaves behind when it is killed (-9: a readable prefix), when it
// gets a fatal SIGTERM (a complete trace, and it still dies of SIGTERM) and when the
// application handles or ignores the signal itself (its handler runs; nothing is lost).
#include "collectors/cupti/trace_session.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "base/testing/test_data.h"
#include "collectors/cupti/signal_chain.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

constexpr int64_t kKernelNs = 1000;
constexpr size_t kRecordBytes = (sizeof(CUpti_ActivityKernel10) + 7) / 8 * 8;

// CUPTI's cuptiActivityGetNextRecord for buffers this test fills: kernel records only,
// packed at 8-byte strides.
CUptiResult NextKernelRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + kRecordBytes;
  if (next + kRecordBytes > buffer + valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

// Fills a buffer from the session with `count` kernels numbered from `first` and hands it
// back, as CUPTI does. `wait_for_buffer`: when every buffer is in use, wait (up to 10 s) for
// the writer to free one instead of failing.
void ProduceKernels(TraceSession& session, int64_t first, int64_t count, bool wait_for_buffer = false) {
  uint8_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  for (int tries = 0; buffer == nullptr; ++tries) {
    session.RequestBuffer(&buffer, &size, &max_records);
    if (buffer != nullptr || !wait_for_buffer || tries == 10'000) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_NE(buffer, nullptr);
  ASSERT_GE(size, static_cast<size_t>(count) * kRecordBytes);
  for (int64_t i = 0; i < count; ++i) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "_Z4stepPf";
    k.start = static_cast<uint64_t>((first + i) * 2 * kKernelNs + 1);
    k.end = k.start + kKernelNs;
    k.streamId = 7;
    k.correlationId = static_cast<uint32_t>(first + i + 1);
    std::memcpy(buffer + static_cast<size_t>(i) * kRecordBytes, &k, sizeof(k));
  }
  session.CompleteBuffer(buffer, static_cast<size_t>(count) * kRecordBytes);
}

std::unique_ptr<TraceSession> StartTestSession(const std::string& path, int64_t buffer_limit = 64 << 20,
                                               bool zeroed_buffers = false) {
  SessionOptions options;
  options.output_path = path;
  options.zeroed_buffers = zeroed_buffers;
  options.config.buffer_bytes = 1 << 20;
  options.config.buffer_limit_bytes = buffer_limit;
  options.config.flush_interval_ms = 20;
  SessionHooks hooks;
  hooks.next_record = NextKernelRecord;
  hooks.now = [] { return int64_t{0}; };
  std::string error;
  auto session = TraceSession::Start(std::move(options), std::move(hooks), &error);
  EXPECT_NE(session, nullptr) << error;
  return session;
}

Profile ImportTrace(const std::string& path) {
  auto result = ImportFile(BuiltinImporters(), path);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  return std::move((*result)[0]);
}

// Every kernel the tracer wrote is one the test produced, whole.
void ExpectProducedKernels(const Profile& p) {
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    ASSERT_EQ(p.kernels[i].duration_ns, kKernelNs) << i;
    ASSERT_EQ(p.kernels[i].start_ns, static_cast<int64_t>(i) * 2 * kKernelNs + 1) << i;
    ASSERT_EQ(p.kernels[i].correlation_id, static_cast<int64_t>(i) + 1) << i;
  }
}

TEST(TraceSessionTest, BuffersFromSeveralThreadsAreAllWritten) {
  std::string path = testing::MakeTempDir("trace_session") + "/trace.json";
  auto session = StartTestSession(path);
  ASSERT_NE(session, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int b = 0; b < 10; ++b) ProduceKernels(*session, (t * 10 + b) * 500, 500);
    });
  for (auto& thread : threads) thread.join();
  ASSERT_TRUE(session->Finish());
  EXPECT_EQ(session->counts().kernels, 20'000);
  Profile p = ImportTrace(path);
  ASSERT_EQ(p.kernels.size(), 20'000u);
  ExpectProducedKernels(p);
  EXPECT_EQ(p.Name(p.kernels[0].name), "step(float*)");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_kernels"), "20000");
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
}

// With CUPTI told that buffers come zeroed, a buffer CUPTI filled comes back zeroed the
// next time it is handed out (cleared on the writer thread, not on the one asking).
TEST(TraceSessionTest, RecycledBuffersAreZeroedWhenCuptiWasPromisedSo) {
  // One buffer of 1 MiB at most: the next request waits for the writer to recycle it.
  auto session = StartTestSession(testing::MakeTempDir("trace_session_zeroed") + "/t.json", 1 << 20, true);
  ASSERT_NE(session, nullptr);
  uint8_t* first = nullptr;
  size_t size = 0, max_records = 0;
  session->RequestBuffer(&first, &size, &max_records);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(std::all_of(first, first + size, [](uint8_t b) { return b == 0; }));  // fresh: calloc
  std::memset(first, 0xA5, size);  // what CUPTI leaves behind, valid or not
  session->CompleteBuffer(first, 0);
  uint8_t* again = nullptr;
  for (int tries = 0; tries < 400 && again == nullptr; ++tries) {  // refused until the writer recycled it
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    session->RequestBuffer(&again, &size, &max_records);
  }
  ASSERT_EQ(again, first);
  EXPECT_TRUE(std::all_of(again, again + size, [](uint8_t b) { return b == 0; }));
  session->CompleteBuffer(again, 0);
  EXPECT_TRUE(session->Finish());
}

TEST(TraceSessionTest, BuffersBeyondTheLimitAreRefusedAndCounted) {
  std::string path = testing::MakeTempDir("trace_session_limit") + "/trace.json";
  auto session = StartTestSession(path, /*buffer_limit=*/2 << 20);
  ASSERT_NE(session, nullptr);
  uint8_t* buffers[3] = {};
  size_t size = 0, max_records = 0;
  for (uint8_t*& buffer : buffers) session->RequestBuffer(&buffer, &size, &max_records);
  EXPECT_NE(buffers[0], nullptr);
  EXPECT_NE(buffers[1], nullptr);
  EXPECT_EQ(buffers[2], nullptr);  // CUPTI then drops records
  EXPECT_EQ(session->buffers_refused(), 1u);
  session->CompleteBuffer(buffers[0], 0);
  session->CompleteBuffer(buffers[1], 0);
  ASSERT_TRUE(session->Finish());
  EXPECT_EQ(ImportTrace(path).metadata.attributes.at("kraken_cupti_buffers_refused"), "1");
}

TEST(TraceSessionTest, AnIdleWriterMakesNoCuptiCallsBetweenFlushes) {
  std::string path = testing::MakeTempDir("trace_session_idle") + "/trace.json";
  SessionOptions options;
  options.output_path = path;
  options.config.buffer_bytes = 1 << 20;
  options.config.flush_interval_ms = 60'000;  // no periodic flush during the test
  std::atomic<int> dropped_queries{0}, flushes{0};
  SessionHooks hooks;
  hooks.next_record = NextKernelRecord;
  hooks.now = [] { return int64_t{0}; };
  hooks.flush_all = [&](bool) { flushes.fetch_add(1); };
  hooks.take_dropped_records = [&]() -> uint64_t { return dropped_queries.fetch_add(1) == 0 ? 3 : 0; };
  std::string error;
  auto session = TraceSession::Start(std::move(options), std::move(hooks), &error);
  ASSERT_NE(session, nullptr) << error;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // six 50 ms polls
  EXPECT_EQ(dropped_queries.load(), 0);
  EXPECT_EQ(flushes.load(), 0);
  ProduceKernels(*session, 0, 100);
  for (int i = 0; i < 400 && dropped_queries.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(dropped_queries.load(), 1);  // once for the buffer
  ASSERT_TRUE(session->Finish());
  EXPECT_EQ(flushes.load(), 1);  // the forced one at the end
  EXPECT_EQ(session->dropped_records(), 3u);
  Profile p = ImportTrace(path);
  EXPECT_EQ(p.kernels.size(), 100u);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_dropped_records"), "3");
}

TEST(TraceSessionTest, TheFooterSaysWhatTheTracerCost) {
  std::string path = testing::MakeTempDir("trace_session_cost") + "/trace.json";
  SessionOptions options;
  options.output_path = path;
  options.config.buffer_bytes = 1 << 20;
  options.config.flush_interval_ms = 20;
  SessionHooks hooks;
  hooks.next_record = NextKernelRecord;
  hooks.now = [] { return int64_t{0}; };
  // A flush that holds its caller 30 ms, as a CUPTI flush behind a lock could.
  hooks.flush_all = [](bool) { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
  std::string error;
  auto session = TraceSession::Start(std::move(options), std::move(hooks), &error);
  ASSERT_NE(session, nullptr) << error;
  ProduceKernels(*session, 0, 100);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(session->Finish());
  const auto& attributes = ImportTrace(path).metadata.attributes;
  const int flushes = std::stoi(attributes.at("kraken_cupti_flushes"));
  EXPECT_GE(flushes, 2);  // periodic ones and the forced one at the end
  EXPECT_GE(std::stod(attributes.at("kraken_cupti_flush_ms_max")), 30.0);
  EXPECT_GE(std::stod(attributes.at("kraken_cupti_flush_ms_total")), 30.0 * flushes);
  EXPECT_GE(std::stod(attributes.at("kraken_cupti_traced_ms")), 200.0);
  const double writer_cpu_ms = std::stod(attributes.at("kraken_cupti_writer_cpu_ms"));
  EXPECT_GE(writer_cpu_ms, 0.0);
  EXPECT_LT(writer_cpu_ms, 150.0);  // it slept in the flushes: not a CPU hog
  EXPECT_GE(std::stod(attributes.at("kraken_cupti_process_cpu_ms")), writer_cpu_ms);
}

// A traced process, forked: produces kernels until killed, or for `rounds` buffers and then
// exits `exit_code` after finishing the trace. Returns its pid.
TraceSession* g_child_session = nullptr;

pid_t StartProducer(const std::string& path, int rounds, int exit_code, const std::function<void()>& before) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (before) before();
  auto session = StartTestSession(path);
  if (session == nullptr) _exit(90);
  g_child_session = session.get();
  // What the tracer's entry point installs (injection.cc): flush on the signal, then chain.
  InstallSignalChain([](int, bool terminating) {
    g_child_session->RequestFromSignal(terminating);
    if (terminating) g_child_session->WaitFromSignal(3000);
  });
  for (int round = 0; rounds < 0 || round < rounds; ++round) {
    // These tests are about signals, not the buffer limit: a loaded machine's writer falls
    // behind this producer's 333 buffers a second, so it waits for a buffer rather than have
    // one refused (and the trace a gap) as CUPTI would.
    ProduceKernels(*session, static_cast<int64_t>(round) * 1000, 1000, /*wait_for_buffer=*/true);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  session->Finish();
  _exit(exit_code);
}

// Waits until the trace at `path` holds at least `bytes`.
void WaitForTraceBytes(const std::string& path, off_t bytes) {
  for (int i = 0; i < 2000; ++i) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && st.st_size >= bytes) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  FAIL() << path << " did not reach " << bytes << " bytes";
}

TEST(TraceSessionTest, KillNineLeavesAReadablePrefix) {
  std::string path = testing::MakeTempDir("trace_session_kill") + "/trace.json";
  pid_t pid = StartProducer(path, -1, 0, {});
  WaitForTraceBytes(path, 2 << 20);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  Profile p = ImportTrace(path);
  EXPECT_GT(p.kernels.size(), 4000u);
  ExpectProducedKernels(p);
  EXPECT_EQ(p.import_counters.at("kineto_trace_cut"), 1);
}

TEST(TraceSessionTest, FatalSigtermClosesTheTraceAndStillKills) {
  std::string path = testing::MakeTempDir("trace_session_term") + "/trace.json";
  pid_t pid = StartProducer(path, -1, 0, {});
  WaitForTraceBytes(path, 1 << 20);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  Profile p = ImportTrace(path);
  EXPECT_GT(p.kernels.size(), 1000u);
  ExpectProducedKernels(p);
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);  // closed before dying
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_kernels"), std::to_string(p.kernels.size()));
}

char g_handled_marker[512];

TEST(TraceSessionTest, TheApplicationsHandlerStillRunsAndIgnoredStaysIgnored) {
  std::string path = testing::MakeTempDir("trace_session_app") + "/trace.json";
  std::string marker = path + ".handled";
  std::snprintf(g_handled_marker, sizeof(g_handled_marker), "%s", marker.c_str());
  // The application handles SIGTERM (it leaves a marker file) and ignores SIGINT; it goes
  // on and ends normally after 100 buffers.
  pid_t pid = StartProducer(path, 100, 42, [] {
    signal(SIGTERM, [](int) { close(open(g_handled_marker, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)); });
    signal(SIGINT, SIG_IGN);
  });
  WaitForTraceBytes(path, 1 << 20);
  kill(pid, SIGTERM);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 42);
  struct stat st {};
  EXPECT_EQ(stat(marker.c_str(), &st), 0) << "the application's SIGTERM handler did not run";
  Profile p = ImportTrace(path);
  EXPECT_EQ(p.kernels.size(), 100'000u);
  ExpectProducedKernels(p);
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
}

}  // namespace
}  // namespace kraken::cupti
