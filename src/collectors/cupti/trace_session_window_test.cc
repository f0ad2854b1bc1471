// The trace session's capture window with CUPTI played by the test: before the window the
// writer makes no CUPTI call at all; at its start the kinds are enabled once, at its end
// disabled, CUPTI's last buffer written and the trace closed while the "process" goes on;
// a window whose start fails closes the trace saying why.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "base/testing/test_data.h"
#include "collectors/cupti/trace_session.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

constexpr size_t kWindowRecordBytes = (sizeof(CUpti_ActivityKernel10) + 7) / 8 * 8;

CUptiResult NextWindowKernel(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + kWindowRecordBytes;
  if (next + kWindowRecordBytes > buffer + valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

int64_t WindowTestNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What the hooks saw, shared with the writer thread.
struct WindowCalls {
  std::atomic<int> flushes{0}, begins{0}, ends{0}, attaches{0};
  std::atomic<int64_t> first_flush_ns{0}, begin_ns{0}, attach_ns{0}, last_buffer_unix_ns{0};
  // A deferred attach (deferred_offset_ns >= 0): CUPTI's clock is this far behind Unix time
  // once attached; before, the session's clock is Unix time (as the tracer's `now` is).
  int64_t deferred_offset_ns = -1;
  std::atomic<bool> attached{false};
  int64_t CuptiNow() const {
    const int64_t unix_ns = WindowTestNowNs();
    return attached.load() ? unix_ns - deferred_offset_ns : unix_ns;
  }
};

struct WindowSession {
  std::unique_ptr<TraceSession> session;
  int64_t started_ns = 0;
  int64_t base_time_ns = 0;  // the trace's time base (Unix ns)
};

// A session on CUPTI's clock = Unix time (as on Linux), flushing every 10 ms while it
// records; `begin_error` is what enabling the kinds answers. A forced flush hands over one
// buffer of 10 kernels 2 us apart, timed at the flush, as CUPTI would with records it held,
// after 50 ms.
WindowSession StartWindowSession(const std::string& path, int64_t delay_ms, int64_t duration_ms,
                                 const std::string& begin_error, WindowCalls* calls) {
  SessionOptions options;
  options.output_path = path;
  options.config.buffer_bytes = 1 << 20;
  options.config.flush_interval_ms = 10;
  options.config.delay_ms = delay_ms;
  options.config.duration_ms = duration_ms;
  const int64_t now = WindowTestNowNs();
  options.base_time_ns = now - now % 1'000'000'000;
  SessionHooks hooks;
  hooks.next_record = NextWindowKernel;
  hooks.now = [calls] { return calls->CuptiNow(); };
  if (calls->deferred_offset_ns >= 0) {
    hooks.attach = [calls](AttachResult* attached) {
      calls->attaches.fetch_add(1);
      calls->attach_ns.store(WindowTestNowNs());
      calls->attached.store(true);
      attached->clock_offset_ns = calls->deferred_offset_ns;
      return std::string();
    };
  }
  hooks.begin_window = [calls, begin_error] {
    calls->begins.fetch_add(1);
    calls->begin_ns.store(WindowTestNowNs());
    return begin_error;
  };
  hooks.end_window = [calls] { calls->ends.fetch_add(1); };
  WindowSession result;
  auto self = std::make_shared<std::atomic<TraceSession*>>(nullptr);  // the flush hook needs the session
  hooks.flush_all = [calls, self](bool forced) {
    int64_t zero = 0;
    calls->first_flush_ns.compare_exchange_strong(zero, WindowTestNowNs());
    calls->flushes.fetch_add(1);
    TraceSession* session = self->load();
    if (!forced || session == nullptr) return;
    // CUPTI's last flush takes its time (and a loaded CI machine more): whoever waits for the
    // window's end must not see it before the flush is written and the trace closed.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    session->RequestBuffer(&buffer, &size, &max_records);
    const auto at = static_cast<uint64_t>(calls->CuptiNow());
    calls->last_buffer_unix_ns.store(WindowTestNowNs());
    for (int i = 0; i < 10; ++i) {
      CUpti_ActivityKernel10 k{};
      k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      k.name = "_Z6windowv";
      k.start = at - 100'000 + static_cast<uint64_t>(i) * 2000;
      k.end = k.start + 1000;
      k.correlationId = static_cast<uint32_t>(i + 1);
      std::memcpy(buffer + static_cast<size_t>(i) * kWindowRecordBytes, &k, sizeof(k));
    }
    session->CompleteBuffer(buffer, 10 * kWindowRecordBytes);
  };
  std::string error;
  result.base_time_ns = options.base_time_ns;
  result.started_ns = WindowTestNowNs();
  result.session = TraceSession::Start(std::move(options), std::move(hooks), &error);
  EXPECT_NE(result.session, nullptr) << error;
  self->store(result.session.get());
  if (result.session) result.session->Arm(false);
  return result;
}

bool WaitForWindowEnd(const TraceSession& session) {
  for (int i = 0; i < 1000 && !session.window_ended(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return session.window_ended();
}

TEST(TraceSessionWindowTest, NothingBeforeTheWindowThenACompleteTraceAtItsEnd) {
  std::string path = testing::MakeTempDir("trace_session_window") + "/trace.json";
  WindowCalls calls;
  WindowSession w = StartWindowSession(path, /*delay_ms=*/150, /*duration_ms=*/100, "", &calls);
  ASSERT_NE(w.session, nullptr);
  ASSERT_TRUE(WaitForWindowEnd(*w.session));
  EXPECT_EQ(calls.begins.load(), 1);
  EXPECT_EQ(calls.ends.load(), 1);
  EXPECT_GE(calls.begin_ns.load() - w.started_ns, 150'000'000);
  // No CUPTI call before the window: the first flush came after the kinds were enabled.
  EXPECT_GE(calls.first_flush_ns.load(), calls.begin_ns.load());
  EXPECT_GE(calls.flushes.load(), 2);  // periodic ones, then the forced one at the end
  EXPECT_FALSE(w.session->finished());  // the process goes on; the trace is closed
  Profile p = [&] {
    auto imported = ImportFile(BuiltinImporters(), path);
    EXPECT_TRUE(imported.ok()) << imported.status().message();
    return imported.ok() ? std::move((*imported)[0]) : Profile();
  }();
  EXPECT_EQ(p.import_counters.count("kineto_trace_cut"), 0u);
  EXPECT_EQ(p.kernels.size(), 10u);  // CUPTI's last buffer, handed over after the kinds went off
  EXPECT_EQ(p.metadata.attributes.count("kraken_cupti_error"), 0u);
  const double start = std::stod(p.metadata.attributes.at("kraken_cupti_window_start_us"));
  const double end = std::stod(p.metadata.attributes.at("kraken_cupti_window_end_us"));
  EXPECT_GE(end - start, 100'000);
  EXPECT_GE(start - std::stod(p.metadata.attributes.at("kraken_cupti_window_requested_start_us")), 0);
  const int flushes_at_end = calls.flushes.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(calls.flushes.load(), flushes_at_end);  // after the window: no CUPTI call either
  EXPECT_TRUE(w.session->Finish());
  EXPECT_EQ(calls.flushes.load(), flushes_at_end);
}

TEST(TraceSessionWindowTest, ADeferredAttachMovesTheWindowToCuptisClock) {
  std::string path = testing::MakeTempDir("trace_session_window_attach") + "/trace.json";
  WindowCalls calls;
  calls.deferred_offset_ns = 20'000'000;  // CUPTI's clock 20 ms behind Unix time
  WindowSession w = StartWindowSession(path, /*delay_ms=*/100, /*duration_ms=*/50, "", &calls);
  ASSERT_NE(w.session, nullptr);
  ASSERT_TRUE(WaitForWindowEnd(*w.session));
  EXPECT_EQ(calls.attaches.load(), 1);
  EXPECT_GE(calls.attach_ns.load() - w.started_ns, 100'000'000);  // at the window's start
  EXPECT_LE(calls.attach_ns.load(), calls.begin_ns.load());        // before the kinds go on
  EXPECT_GE(calls.first_flush_ns.load(), calls.begin_ns.load());
  auto imported = ImportFile(BuiltinImporters(), path);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  ASSERT_EQ(p.kernels.size(), 10u);
  // The requested start was taken in Unix time and moved with the offset: the window began
  // at it or after it, not 20 ms "before"; the kernels are on Unix time, the offset added.
  const double requested = std::stod(p.metadata.attributes.at("kraken_cupti_window_requested_start_us"));
  const double start = std::stod(p.metadata.attributes.at("kraken_cupti_window_start_us"));
  EXPECT_GE(start, requested);
  EXPECT_NEAR(std::stod(p.metadata.attributes.at("kraken_cupti_window_requested_end_us")) - requested, 50'000, 1);
  const double buffer_us = static_cast<double>(calls.last_buffer_unix_ns.load() - w.base_time_ns) / 1e3;
  EXPECT_NEAR(static_cast<double>(p.kernels.front().start_ns) / 1e3, buffer_us - 100, 1000);
  EXPECT_TRUE(w.session->Finish());
}

TEST(TraceSessionWindowTest, AWindowThatCannotStartClosesTheTraceSayingWhy) {
  std::string path = testing::MakeTempDir("trace_session_window_error") + "/trace.json";
  WindowCalls calls;
  WindowSession w = StartWindowSession(path, 20, 0, "CUPTI cannot record kernels: CUPTI_ERROR_FAKE (1)", &calls);
  ASSERT_NE(w.session, nullptr);
  ASSERT_TRUE(WaitForWindowEnd(*w.session));
  EXPECT_EQ(calls.ends.load(), 0);
  EXPECT_EQ(calls.flushes.load(), 0);
  auto imported = ImportFile(BuiltinImporters(), path);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_error"), "CUPTI cannot record kernels: CUPTI_ERROR_FAKE (1)");
  EXPECT_NE(p.metadata.attributes.at("kraken_cupti_window").find("not started"), std::string::npos);
  EXPECT_TRUE(w.session->Finish());
}

}  // namespace
}  // namespace kraken::cupti
