#include "k8s/controller/controller_loop.h"

#include <signal.h>

#include <algorithm>
#include <thread>

namespace kraken::k8s {
namespace {

std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

void OnStopSignal(int) { g_stop_requested.store(true); }

}  // namespace

ControllerLoopStats RunControllerLoop(const std::function<Status(int64_t)>& pass,
                                      const std::function<void(int64_t, const Status&)>& on_failure,
                                      const std::atomic<bool>& stop, const ControllerLoopOptions& options) {
  using Clock = std::chrono::steady_clock;
  ControllerLoopStats stats;
  const auto poll = std::max(options.stop_poll, std::chrono::milliseconds(1));
  while (!stop.load()) {
    const Clock::time_point started = Clock::now();
    ++stats.passes;
    Status status = pass(stats.passes);
    if (!status.ok()) {
      ++stats.failed_passes;
      on_failure(stats.passes, status);
    }
    const Clock::time_point next = started + options.every;
    while (!stop.load()) {
      const Clock::time_point now = Clock::now();
      if (now >= next) break;
      std::this_thread::sleep_for(std::min<Clock::duration>(next - now, poll));
    }
  }
  return stats;
}

const std::atomic<bool>& InstallStopSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return g_stop_requested;
}

}  // namespace kraken::k8s
