// TraceSession's capture window (KRAKEN_CUPTI_DELAY_MS, KRAKEN_CUPTI_DURATION_MS,
// KRAKEN_CUPTI_START_ON_NVTX): when the writer thread (or a thread pushing the NVTX range)
// turns the activity kinds on and off, and the window's members in the footer. The
// buffers, the writer loop and the footer are in trace_session.cc.
#include "collectors/cupti/trace_session.h"

#include <algorithm>
#include <chrono>

#include "collectors/cupti/trace_session_clock.h"

namespace kraken::cupti {
namespace {

// How often the writer looks at signal requests between buffers.
constexpr auto kPollInterval = std::chrono::milliseconds(50);

}  // namespace

void TraceSession::Arm(bool recording) {
  const int64_t now = hooks_.now ? hooks_.now() : 0;
  armed_mono_ns_ = ClockNs(CLOCK_MONOTONIC);
  requested_start_ns_ = now + options_.config.delay_ms * 1'000'000;
  if (recording) {
    window_start_ns_ = now;
    recording_mono_ns_ = armed_mono_ns_;
  }
  window_state_.store(recording ? WindowState::kRecording : WindowState::kWaiting);
  wake_.notify_all();  // the first deadline may be sooner than the next poll
}

std::chrono::milliseconds TraceSession::WaitTime() const {
  const WindowState state = window_state_.load();
  int64_t deadline_ns = -1;
  if (state == WindowState::kWaiting && options_.config.start_on_nvtx.empty())
    deadline_ns = armed_mono_ns_ + options_.config.delay_ms * 1'000'000;
  if (state == WindowState::kRecording && options_.config.duration_ms > 0)
    deadline_ns = recording_mono_ns_ + options_.config.duration_ms * 1'000'000;
  if (deadline_ns < 0) return kPollInterval;
  const int64_t left_ms = (deadline_ns - ClockNs(CLOCK_MONOTONIC) + 999'999) / 1'000'000;
  return std::chrono::milliseconds(std::clamp<int64_t>(left_ms, 0, kPollInterval.count()));
}

bool TraceSession::StepWindow() {
  const int64_t now = ClockNs(CLOCK_MONOTONIC);
  WindowState state = window_state_.load();
  const bool delay_passed = now >= armed_mono_ns_ + options_.config.delay_ms * 1'000'000;
  // With an NVTX range to wait for, the pushing thread starts the window (StartWindowNow).
  if (state == WindowState::kWaiting && delay_passed && options_.config.start_on_nvtx.empty() &&
      window_state_.compare_exchange_strong(state, WindowState::kStarting)) {
    BeginWindow();
    state = window_state_.load();
  }
  if (state == WindowState::kStartFailed) {
    SetError(start_error_);
    EndWindow(false);
    return true;
  }
  if (state == WindowState::kRecording && options_.config.duration_ms > 0 &&
      now >= recording_mono_ns_ + options_.config.duration_ms * 1'000'000) {
    EndWindow(true);
    return true;
  }
  return false;
}

bool TraceSession::StartWindowNow() {
  WindowState state = window_state_.load();
  if (state == WindowState::kUnarmed) return false;
  if (state != WindowState::kWaiting) return true;
  if (ClockNs(CLOCK_MONOTONIC) < armed_mono_ns_ + options_.config.delay_ms * 1'000'000) return false;
  if (window_state_.compare_exchange_strong(state, WindowState::kStarting)) BeginWindow();
  wake_.notify_all();  // the writer watches the duration from now on
  return true;
}

void TraceSession::BeginWindow() {
  std::string error;
  if (hooks_.attach) {
    AttachResult attached;
    error = hooks_.attach(&attached);
    if (error.empty()) ApplyAttach(attached);
  }
  const int64_t start = hooks_.now ? hooks_.now() : 0;  // the kinds are on from here
  if (error.empty() && hooks_.begin_window) error = hooks_.begin_window();
  if (!error.empty()) {
    start_error_ = std::move(error);  // the writer closes the trace (it owns the file)
    window_state_.store(WindowState::kStartFailed);
    return;
  }
  window_start_ns_ = start;
  recording_mono_ns_ = ClockNs(CLOCK_MONOTONIC);  // after `start`: the window lasts at least duration_ms
  window_state_.store(WindowState::kRecording);
}

void TraceSession::EndWindow(bool recorded) {
  if (recorded && hooks_.end_window) hooks_.end_window();
  if (recorded) window_end_ns_ = hooks_.now ? hooks_.now() : 0;
  // Not kEnded yet: whoever waits for the window's end wants the trace complete, and the
  // last flush and the close below come first (under load they took long enough to be seen).
  window_state_.store(WindowState::kClosing);
  if (recorded) {
    // What ran until the kinds went off: CUPTI hands it over, the writer writes it.
    FlushCupti(true);
    ProcessQueued();
  }
  writer_cpu_ns_.store(ClockNs(CLOCK_THREAD_CPUTIME_ID));
  CloseTrace();
  ReleaseFreeBuffers();
  if (hooks_.writer_pass) hooks_.writer_pass(true);  // no later pass: nothing may stay behind
  window_state_.store(WindowState::kEnded);
  if (hooks_.window_closed) hooks_.window_closed(*this);
}

void TraceSession::ApplyAttach(const AttachResult& attached) {
  zeroed_buffers_.store(attached.zeroed_buffers);
  // Times taken before, in Unix time (an offset of 0), move to CUPTI's clock with it.
  requested_start_ns_ -= attached.clock_offset_ns - options_.converter.clock_offset_ns;
  options_.converter.clock_offset_ns = attached.clock_offset_ns;
  converter_.set_clock_offset_ns(attached.clock_offset_ns);
}

double TraceSession::TraceMicros(int64_t cupti_ns) const {
  return static_cast<double>(cupti_ns + options_.converter.clock_offset_ns - options_.base_time_ns) / 1e3;
}

JsonMembers TraceSession::WindowMembers() {
  const TracerConfig& config = options_.config;
  if ((config.delay_ms == 0 && config.duration_ms == 0 && config.start_on_nvtx.empty()) || requested_start_ns_ < 0)
    return {};
  // Recording until the trace closes (exit, a signal): the window ends there.
  if (window_start_ns_ >= 0 && window_end_ns_ < 0) window_end_ns_ = hooks_.now ? hooks_.now() : 0;
  JsonMembers members = {{"kraken_cupti_window_requested_start_us", JsonNumber(TraceMicros(requested_start_ns_))}};
  if (config.duration_ms > 0 && config.start_on_nvtx.empty())  // else it follows the range's push
    members.emplace_back("kraken_cupti_window_requested_end_us",
                         JsonNumber(TraceMicros(requested_start_ns_ + config.duration_ms * 1'000'000)));
  if (window_start_ns_ >= 0) {
    members.emplace_back("kraken_cupti_window_start_us", JsonNumber(TraceMicros(window_start_ns_)));
    members.emplace_back("kraken_cupti_window_end_us", JsonNumber(TraceMicros(window_end_ns_)));
  } else {
    members.emplace_back("kraken_cupti_window", JsonString("not started: the process ended or the start failed first"));
  }
  return members;
}

}  // namespace kraken::cupti
