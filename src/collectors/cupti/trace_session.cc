#include "collectors/cupti/trace_session.h"

#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "collectors/cupti/trace_session_clock.h"

namespace kraken::cupti {
namespace {

// CUPTI requires 8-byte aligned buffers.
constexpr size_t kBufferAlignment = 8;
// Buffers kept for reuse; more are freed, so memory follows the peak only briefly.
constexpr size_t kMaxFreeBuffers = 4;
// Text written as soon as this much is pending, so a large buffer does not grow a large string.
constexpr size_t kWriteChunkBytes = 1 << 20;

// Blocks the asynchronous signals in the calling thread; returns the previous mask. A
// thread started meanwhile inherits the blocked mask, so the writer never runs the
// application's (or the tracer's own) SIGINT/SIGTERM handlers.
sigset_t BlockAsyncSignals() {
  sigset_t all, previous;
  sigfillset(&all);
  for (int synchronous : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&all, synchronous);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  return previous;
}

}  // namespace

TraceSession::TraceSession(SessionOptions options, SessionHooks hooks, std::unique_ptr<KinetoTraceWriter> writer)
    : options_(std::move(options)),
      hooks_(std::move(hooks)),
      writer_(std::move(writer)),
      converter_(writer_.get(), options_.converter) {
  zeroed_buffers_.store(options_.zeroed_buffers);
}

std::unique_ptr<TraceSession> TraceSession::Start(SessionOptions options, SessionHooks hooks, std::string* error) {
  auto writer = KinetoTraceWriter::Open(options.output_path, options.base_time_ns, options.header, error);
  if (writer == nullptr) return nullptr;
  std::unique_ptr<TraceSession> session(new TraceSession(std::move(options), std::move(hooks), std::move(writer)));
  session->started_ns_ = ClockNs(CLOCK_MONOTONIC);
  sigset_t previous = BlockAsyncSignals();
  try {
    session->thread_ = std::thread([s = session.get()] { s->WriterLoop(); });
  } catch (const std::system_error& e) {
    *error = std::string("cannot start the writer thread: ") + e.what();
    session->finished_ = true;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!session->thread_.joinable()) return nullptr;
  return session;
}

TraceSession::~TraceSession() {
  Finish();
  for (auto& [buffer, size] : queued_) std::free(buffer);
  for (uint8_t* buffer : free_buffers_) std::free(buffer);
}

void TraceSession::RequestBuffer(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  const auto bytes = static_cast<size_t>(options_.config.buffer_bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_buffers_.empty()) {
      *buffer = free_buffers_.back();
      free_buffers_.pop_back();
      *size = bytes;
      return;
    }
    if (allocated_bytes_ + options_.config.buffer_bytes > options_.config.buffer_limit_bytes) {
      // CUPTI then drops records and counts them (cuptiActivityGetNumDroppedRecords).
      buffers_refused_.fetch_add(1);
      *buffer = nullptr;
      *size = 0;
      return;
    }
    allocated_bytes_ += options_.config.buffer_bytes;
  }
  // calloc's blocks are 16-byte aligned (CUPTI needs 8) and a large one comes from fresh
  // zero pages: zeroed at no cost here, on the application thread.
  static_assert(alignof(std::max_align_t) >= kBufferAlignment);
  *buffer = static_cast<uint8_t*>(zeroed_buffers_.load() ? std::calloc(1, bytes)
                                                          : std::aligned_alloc(kBufferAlignment, bytes));
  *size = *buffer != nullptr ? bytes : 0;
}

void TraceSession::CompleteBuffer(uint8_t* buffer, size_t valid_size) {
  if (buffer == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_.load()) {
      queued_.emplace_back(buffer, valid_size);
      buffer = nullptr;
    }
  }
  if (buffer != nullptr) {
    RecycleBuffer(buffer);  // the trace is closed: nothing more is written
    return;
  }
  wake_.notify_one();
}

void TraceSession::RecycleBuffer(uint8_t* buffer) {
  // Cleared here, off the application's threads: a reused buffer must be zeroed again.
  if (zeroed_buffers_.load()) std::memset(buffer, 0, static_cast<size_t>(options_.config.buffer_bytes));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_buffers_.size() < kMaxFreeBuffers) {
      free_buffers_.push_back(buffer);
      return;
    }
    allocated_bytes_ -= options_.config.buffer_bytes;
  }
  std::free(buffer);
}

void TraceSession::ProcessBuffer(uint8_t* buffer, size_t valid_size) {
  CUpti_Activity* record = nullptr;
  while (hooks_.next_record(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    converter_.Convert(*record);
    if (writer_->pending_bytes() >= kWriteChunkBytes) writer_->Flush();
  }
}

void TraceSession::SetCounterSource(std::function<void()> finish, std::function<JsonMembers()> footer) {
  std::lock_guard<std::mutex> lock(mutex_);
  counters_finish_ = std::move(finish);
  counters_footer_ = std::move(footer);
}

void TraceSession::QueueCounterRanges(std::vector<CounterRange> ranges) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_.load()) return;
    for (CounterRange& range : ranges) counter_ranges_.push_back(std::move(range));
  }
  wake_.notify_one();
}

void TraceSession::WriteCounterRanges(const std::vector<CounterRange>& ranges) {
  TraceEvent event;
  for (const CounterRange& range : ranges) {
    CounterRangeToEvent(range, options_.converter.clock_offset_ns, &event);
    writer_->Emit(event);
    if (writer_->pending_bytes() >= kWriteChunkBytes) writer_->Flush();
  }
}

void TraceSession::ProcessQueued() {
  std::vector<std::pair<uint8_t*, size_t>> batch;
  std::vector<CounterRange> ranges;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch.swap(queued_);
    ranges.swap(counter_ranges_);
  }
  if (!closed_.load()) WriteCounterRanges(ranges);
  for (auto& [buffer, valid_size] : batch) {
    if (!closed_.load()) ProcessBuffer(buffer, valid_size);
    RecycleBuffer(buffer);
  }
  // Only with buffers in hand: the writer polls every 50 ms, and each CUPTI call it makes
  // while the application launches is one more chance to contend for CUPTI's locks.
  if (!batch.empty() && hooks_.take_dropped_records) dropped_records_ += hooks_.take_dropped_records();
  if (!closed_.load() && writer_->pending_bytes() > 0 && !writer_->Flush()) write_error_ = writer_->error();
}

void TraceSession::WriterLoop() {
  using Clock = std::chrono::steady_clock;
  const auto flush_interval = std::chrono::milliseconds(options_.config.flush_interval_ms);
  auto next_flush = Clock::now() + flush_interval;
  while (true) {
    bool stop = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, WaitTime(), [this] { return stop_ || !queued_.empty() || !counter_ranges_.empty(); });
      stop = stop_;
    }
    if (hooks_.writer_pass) hooks_.writer_pass(stop);
    ProcessQueued();
    if (stop) {
      writer_cpu_ns_.store(ClockNs(CLOCK_THREAD_CPUTIME_ID));
      return;
    }
    if (int request = signal_request_.exchange(0); request != 0) {
      FlushCupti(true);
      ProcessQueued();
      if (request == 2) {
        writer_cpu_ns_.store(ClockNs(CLOCK_THREAD_CPUTIME_ID));
        CloseTrace();
      }
      signal_requests_served_.fetch_add(1);
      if (request == 2) return;  // the process is about to die with the signal
      continue;
    }
    if (StepWindow()) return;  // the window ended: the trace is complete, the process runs on
    // Before and after the window CUPTI holds nothing: no flush, the tracer costs nothing.
    const WindowState state = window_state_.load();
    const bool recording = state == WindowState::kRecording || state == WindowState::kUnarmed;
    if (recording && Clock::now() >= next_flush) {
      // Buffers CUPTI holds reach the file at least this often (what a kill -9 loses).
      FlushCupti(false);
      ProcessQueued();
      next_flush = Clock::now() + flush_interval;
    }
  }
}

void TraceSession::ReleaseFreeBuffers() {
  std::vector<uint8_t*> buffers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    buffers.swap(free_buffers_);
    allocated_bytes_ -= static_cast<int64_t>(buffers.size()) * options_.config.buffer_bytes;
  }
  for (uint8_t* buffer : buffers) std::free(buffer);
}

void TraceSession::FlushCupti(bool forced) {
  if (!hooks_.flush_all) return;
  const int64_t start = ClockNs(CLOCK_MONOTONIC);
  hooks_.flush_all(forced);
  const int64_t took = ClockNs(CLOCK_MONOTONIC) - start;
  std::lock_guard<std::mutex> lock(cost_mutex_);
  ++flushes_;
  flush_ns_total_ += took;
  if (took > flush_ns_max_) flush_ns_max_ = took;
}

JsonMembers TraceSession::CostMembers() const {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  const int64_t process_cpu_us = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * int64_t{1'000'000} +
                                 usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
  const int64_t writer_cpu_ns = writer_cpu_ns_.load();
  std::lock_guard<std::mutex> lock(cost_mutex_);
  JsonMembers members = {
      {"kraken_cupti_flushes", JsonInt(flushes_)},
      {"kraken_cupti_flush_ms_total", JsonNumber(static_cast<double>(flush_ns_total_) / 1e6)},
      {"kraken_cupti_flush_ms_max", JsonNumber(static_cast<double>(flush_ns_max_) / 1e6)},
      {"kraken_cupti_process_cpu_ms", JsonNumber(static_cast<double>(process_cpu_us) / 1e3)},
      {"kraken_cupti_traced_ms", JsonNumber(static_cast<double>(ClockNs(CLOCK_MONOTONIC) - started_ns_) / 1e6)}};
  if (writer_cpu_ns >= 0)
    members.emplace_back("kraken_cupti_writer_cpu_ms", JsonNumber(static_cast<double>(writer_cpu_ns) / 1e6));
  return members;
}

void TraceSession::CloseTrace() {
  if (closed_.load()) return;
  if (hooks_.take_dropped_records) dropped_records_ += hooks_.take_dropped_records();  // dropped since the last buffer
  converter_.Finish(hooks_.now ? hooks_.now() : 0);
  JsonMembers footer = converter_.FooterMembers();
  footer.emplace_back("kraken_cupti_dropped_records", JsonInt(static_cast<int64_t>(dropped_records_)));
  footer.emplace_back("kraken_cupti_buffers_refused", JsonInt(static_cast<int64_t>(buffers_refused_.load())));
  footer.emplace_back("kraken_cupti_zeroed_buffers", zeroed_buffers_.load() ? "true" : "false");
  for (auto& member : CostMembers()) footer.push_back(std::move(member));
  for (auto& member : WindowMembers()) footer.push_back(std::move(member));
  if (hooks_.closing_members) {
    const bool process_runs_on = window_state_.load() == WindowState::kClosing;  // EndWindow closes it
    for (auto& member : hooks_.closing_members(process_runs_on)) footer.push_back(std::move(member));
  }
  if (!error_.empty()) footer.emplace_back("kraken_cupti_error", JsonString(error_));
  std::function<JsonMembers()> counters_footer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    counters_footer = counters_footer_;
  }
  if (counters_footer)
    for (auto& member : counters_footer()) footer.push_back(std::move(member));
  if (!writer_->Finish(footer) && write_error_.empty()) write_error_ = writer_->error();
  std::lock_guard<std::mutex> lock(mutex_);  // CompleteBuffer stops queueing from here on
  closed_.store(true);
}

bool TraceSession::Finish() {
  if (finished_.exchange(true)) return write_error_.empty();
  // CUPTI hands over what it holds (CompleteBuffer queues it), then the writer drains.
  if (!closed_.load()) FlushCupti(true);
  std::function<void()> counters_finish;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    counters_finish = counters_finish_;
  }
  if (counters_finish && !closed_.load()) counters_finish();  // queues the last kernels' counters
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  ProcessQueued();  // anything queued after the writer's last pass
  CloseTrace();
  return write_error_.empty();
}

void TraceSession::RequestFromSignal(bool final) {
  if (final) {
    signal_request_.store(2);
  } else {
    int none = 0;
    signal_request_.compare_exchange_strong(none, 1);
  }
  signal_requests_made_.fetch_add(1);
}

bool TraceSession::WaitFromSignal(int64_t timeout_ms) const {
  const int target = signal_requests_made_.load();
  for (int64_t waited = 0; waited < timeout_ms; ++waited) {
    if (signal_requests_served_.load() >= target || closed_.load()) return true;
    struct timespec one_ms {0, 1'000'000};
    nanosleep(&one_ms, nullptr);
  }
  return signal_requests_served_.load() >= target;
}

}  // namespace kraken::cupti
