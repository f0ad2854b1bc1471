// The controller mode's loop (`kraken annotate --every 5m`): one pass, then a sleep, until
// a stop is requested (SIGINT/SIGTERM set the flag). A failed pass is reported and the
// loop goes on, since the next pass retries against a Prometheus or API server that may be
// back by then. Kept apart from the CLI so the timing and stop rules are unit-tested.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "base/status.h"

namespace kraken::k8s {

struct ControllerLoopOptions {
  std::chrono::milliseconds every{300'000};
  // How often the sleep looks at the stop flag: a signal handler can only set an atomic,
  // so the wait polls it; 100 ms makes SIGTERM prompt at no measurable cost.
  std::chrono::milliseconds stop_poll{100};
};

struct ControllerLoopStats {
  int64_t passes = 0;
  int64_t failed_passes = 0;
};

// Calls `pass(pass_number)` (1, 2, ...) then waits `every` measured from the pass's
// start (a pass longer than `every` is followed at once by the next), until `stop` is
// true; a stop during a pass ends the loop after it. `on_failure(pass_number, status)` is
// called for each failed pass.
ControllerLoopStats RunControllerLoop(const std::function<Status(int64_t)>& pass,
                                      const std::function<void(int64_t, const Status&)>& on_failure,
                                      const std::atomic<bool>& stop, const ControllerLoopOptions& options);

// Installs SIGINT and SIGTERM handlers that set a process-wide flag, and returns it.
const std::atomic<bool>& InstallStopSignalHandlers();

}  // namespace kraken::k8s
