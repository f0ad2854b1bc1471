// One traced process's recording: CUPTI's buffers, the background thread that turns their
// records into trace events and writes them, and the end of the trace.
//
// Threads. CUPTI calls RequestBuffer/CompleteBuffer on application threads (or its own):
// they only take a buffer from a free list or queue a full one, under a short lock, and
// never do I/O. The writer thread converts and writes queued buffers, and every flush
// interval asks CUPTI for the buffers it holds (so a killed process loses at most about
// that much). Finish (at exit) forces CUPTI's last buffers out, lets the writer drain them
// and closes the trace. A fatal signal asks the writer to do the same and waits for it a
// bounded time (RequestFromSignal / WaitFromSignal, async-signal-safe).
#pragma once

#include <cupti.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectors/cupti/activity_converter.h"
#include "collectors/cupti/counter_events.h"
#include "collectors/cupti/kineto_writer.h"
#include "collectors/cupti/tracer_config.h"

namespace kraken::cupti {

class TraceSession;

// What a deferred attach measured once CUPTI was first called (SessionHooks::attach).
struct AttachResult {
  int64_t clock_offset_ns = 0;   // CUPTI clock -> Unix time
  bool zeroed_buffers = false;   // as SessionOptions::zeroed_buffers
};

// What the session needs from CUPTI: the real functions in the tracer, fakes in tests.
struct SessionHooks {
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  std::function<void(bool forced)> flush_all;           // cuptiActivityFlushAll
  std::function<uint64_t()> take_dropped_records;       // cuptiActivityGetNumDroppedRecords
  std::function<int64_t()> now;                         // cuptiGetTimestamp (CUPTI clock)
  // The capture window (config.delay_ms, config.duration_ms), called on the writer thread:
  std::function<std::string()> begin_window;  // enables the activity kinds: "" or why not
  // Set when CUPTI is attached for the window only (cupti_detach.h): CUPTI's first call, at
  // the window's start before `now` and begin_window: "" or why not. Until then `now` is
  // Unix time (a clock offset of 0), shifted once the offset is known.
  std::function<std::string(AttachResult*)> attach;
  std::function<void()> end_window;           // disables them
  std::function<void(const TraceSession&)> window_closed;  // the trace is complete (the process runs on)
  std::function<void(bool last)> writer_pass;  // each pass of the writer; `last`: it stops for good
  // More closing members (e.g. the timestamps' source); `process_runs_on`: the window's end
  // closes the trace, not the exit.
  std::function<JsonMembers(bool process_runs_on)> closing_members;
};

struct SessionOptions {
  TracerConfig config;
  std::string output_path;
  int64_t base_time_ns = 0;  // baseTimeNanoseconds (Unix time)
  JsonMembers header;        // extra top-level members written first
  ConverterOptions converter;
  // CUPTI was told (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER) that the buffers it is
  // given are zeroed: else it zeroes each one itself on the application thread that needs it.
  // The session then hands out zeroed buffers, clearing a used one on the writer thread.
  bool zeroed_buffers = false;
};

class TraceSession {
 public:
  // Creates the trace file, writes its header and starts the writer thread. nullptr with
  // *error when the file cannot be created.
  static std::unique_ptr<TraceSession> Start(SessionOptions options, SessionHooks hooks, std::string* error);
  ~TraceSession();  // Finish() if not done
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

  // CUPTI's buffer callbacks.
  void RequestBuffer(uint8_t** buffer, size_t* size, size_t* max_records);
  void CompleteBuffer(uint8_t* buffer, size_t valid_size);

  // Written into the trace's closing members as "kraken_cupti_error" (tracing failed after
  // the file was created, e.g. CUPTI could not enable kernel records).
  void SetError(std::string error) { error_ = std::move(error); }

  // Per-kernel counters (KRAKEN_CUPTI_COUNTERS): `finish` runs in Finish() once CUPTI's last
  // buffers are out and before the trace closes (the counters of the last kernels), and
  // `footer` adds its members to the closing ones. Set before the counters can start.
  void SetCounterSource(std::function<void()> finish, std::function<JsonMembers()> footer);
  // Any thread: ranges for the writer thread to write (short lock, no I/O).
  void QueueCounterRanges(std::vector<CounterRange> ranges);
  // Starts the capture window's clock, once CUPTI's buffer callbacks are registered.
  // `recording`: the activity kinds are on already (no delay); else the writer thread calls
  // hooks.begin_window config.delay_ms from now. With config.duration_ms the writer ends the
  // window that long after it began: hooks.end_window, a forced flush, the trace closed and
  // the writer stopped while the process runs on. Before Arm the writer records nothing.
  void Arm(bool recording);
  // The window ended and its trace is complete on disk (the last flush written, the file closed).
  bool window_ended() const { return window_state_.load() == WindowState::kEnded; }
  // With config.start_on_nvtx: starts the window now, on the calling thread (the one pushing
  // the range), unless config.delay_ms has not passed yet (false). True also when it had
  // started already or cannot start any more.
  bool StartWindowNow();

  // Forces CUPTI's buffers out, writes everything, closes the trace and stops the thread.
  // Idempotent; returns false when the trace could not be written completely.
  bool Finish();

  // From a signal handler: wake the writer to flush what CUPTI holds and write it, and
  // with `final` also close the trace (the process is about to die). Async-signal-safe.
  void RequestFromSignal(bool final);
  // From a signal handler: waits until that request was served, at most `timeout_ms`.
  bool WaitFromSignal(int64_t timeout_ms) const;

  const std::string& output_path() const { return options_.output_path; }
  bool finished() const { return finished_.load(); }
  // For the summary line and tests.
  const ConversionCounts& counts() const { return converter_.counts(); }
  uint64_t dropped_records() const { return dropped_records_; }
  uint64_t buffers_refused() const { return buffers_refused_.load(); }
  const std::string& write_error() const { return write_error_; }
  const std::string& error() const { return error_; }  // SetError's, or why the window could not start

 private:
  TraceSession(SessionOptions options, SessionHooks hooks, std::unique_ptr<KinetoTraceWriter> writer);
  void WriterLoop();
  void ProcessQueued();       // converts and writes every queued buffer
  void ProcessBuffer(uint8_t* buffer, size_t valid_size);
  void WriteCounterRanges(const std::vector<CounterRange>& ranges);
  void RecycleBuffer(uint8_t* buffer);
  void CloseTrace();          // writer thread or Finish after the join: the footer
  void FlushCupti(bool forced);  // hooks_.flush_all, timed (what it may hold CUPTI's locks for)
  JsonMembers CostMembers() const;  // the tracer's own cost, for the footer
  JsonMembers WindowMembers();      // the capture window, for the footer
  bool StepWindow();                // starts/ends the window when due; true when the trace is closed
  void BeginWindow();               // kStarting -> kRecording, or kStartFailed with start_error_
  void EndWindow(bool recorded);    // writer thread: the window's end closes the trace
  std::chrono::milliseconds WaitTime() const;  // until the next poll or window deadline
  void ReleaseFreeBuffers();        // the trace is closed for good: nothing more to hold
  double TraceMicros(int64_t cupti_ns) const;  // CUPTI clock -> the trace's "ts" time base
  void ApplyAttach(const AttachResult& attached);  // the offset and buffers of a deferred attach

  SessionOptions options_;
  SessionHooks hooks_;
  std::unique_ptr<KinetoTraceWriter> writer_;
  ActivityConverter converter_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::pair<uint8_t*, size_t>> queued_;  // full buffers and their valid bytes
  std::vector<uint8_t*> free_buffers_;
  std::vector<CounterRange> counter_ranges_;  // queued by QueueCounterRanges
  std::function<void()> counters_finish_;
  std::function<JsonMembers()> counters_footer_;
  int64_t allocated_bytes_ = 0;
  bool stop_ = false;
  std::atomic<uint64_t> buffers_refused_{0};
  // options_.zeroed_buffers, or what a deferred attach got (before CUPTI's first request).
  std::atomic<bool> zeroed_buffers_{false};

  // Signal requests: 0 none, 1 flush, 2 flush and close; served_ counts served requests.
  std::atomic<int> signal_request_{0};
  std::atomic<int> signal_requests_made_{0};
  std::atomic<int> signal_requests_served_{0};

  // The capture window. The times are set by Arm (before the writer looks) or the writer;
  // Finish reads them after joining the writer.
  // kClosing: the writer is flushing and closing the trace; kEnded: the trace is complete.
  enum class WindowState { kUnarmed, kWaiting, kStarting, kRecording, kStartFailed, kClosing, kEnded };
  std::atomic<WindowState> window_state_{WindowState::kUnarmed};
  int64_t armed_mono_ns_ = 0;  // CLOCK_MONOTONIC, set by Arm before the state leaves kUnarmed
  int64_t requested_start_ns_ = -1;  // CUPTI clock, idem
  // Written by the thread that begins the window (the writer, or one pushing the NVTX range)
  // while the writer or an exiting thread may read them (WindowMembers): atomic.
  std::atomic<int64_t> recording_mono_ns_{0};                       // CLOCK_MONOTONIC
  std::atomic<int64_t> window_start_ns_{-1}, window_end_ns_{-1};    // CUPTI clock
  std::string start_error_;  // BeginWindow's, for the writer to record (kStartFailed)

  std::atomic<bool> finished_{false};
  std::atomic<bool> closed_{false};  // the footer is written: later buffers are dropped
  uint64_t dropped_records_ = 0;
  // The tracer's cost, in the footer: is the writer a CPU hog, does a flush take long?
  mutable std::mutex cost_mutex_;  // Finish's flush may overlap the writer's
  int64_t flushes_ = 0, flush_ns_total_ = 0, flush_ns_max_ = 0;
  std::atomic<int64_t> writer_cpu_ns_{-1};  // the writer thread's CPU time when its loop ended
  int64_t started_ns_ = 0;                  // CLOCK_MONOTONIC at Start
  std::string write_error_;
  std::string error_;
  std::thread thread_;
};

}  // namespace kraken::cupti
