// The clocks the trace session reads (trace_session.cc, trace_session_window.cc):
// CLOCK_MONOTONIC for the capture window and the tracer's cost, CLOCK_THREAD_CPUTIME_ID for
// the writer thread's CPU time.
#pragma once

#include <time.h>

#include <cstdint>

namespace kraken::cupti {

inline int64_t ClockNs(clockid_t clock) {
  struct timespec now {};
  clock_gettime(clock, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

}  // namespace kraken::cupti
