// Starting the profiled command and stopping on SIGINT/SIGTERM. `kraken profile -- CMD`
// forks and execs CMD in kraken's own process group, so that Ctrl-C in a terminal reaches
// both; a signal sent to kraken alone (kill -INT, a job scheduler's SIGTERM) is forwarded
// to the child once, so the child sees each signal exactly once either way.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace kraken::profiling {

// Forks and execs argv (PATH search). Fails when the command cannot be executed; the child
// is then already gone.
Result<pid_t> StartCommand(const std::vector<std::string>& argv);

// The fork/exec both `kraken profile` and `kraken trial` use: forks, runs `prepare` in the
// child (between fork and exec, so only async-signal-safe work: process group, fds,
// signals), then execs argv (PATH search). A failed exec is reported through a
// close-on-exec pipe and returned as "cannot run 'CMD': <reason>", the child then already
// reaped. argv must not be empty.
Result<pid_t> ForkExec(const std::vector<std::string>& argv, const std::function<void()>& prepare);

// Installs the SIGINT/SIGTERM handlers: each records the signal; with a forward pid set,
// a signal that did not come from the terminal is sent on to it.
void InstallStopSignalHandlers();
void SetSignalForwardPid(pid_t pid);  // 0 = forward nothing
// The first SIGINT/SIGTERM received since the handlers were installed, or 0.
int StopSignalReceived();

// The exit code a shell would report: the status, or 128 + the signal that killed it.
int ExitCodeOfWaitStatus(int wait_status);

// Non-blocking: the child's exit code when it has ended (and reaps it), else nullopt.
std::optional<int> PollChildExit(pid_t pid);
// Blocking (retries on EINTR).
int WaitChildExit(pid_t pid);

}  // namespace kraken::profiling
