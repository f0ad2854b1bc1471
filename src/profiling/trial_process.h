// The processes of `kraken trial`: each candidate's command runs in its own process group
// with CUDA_VISIBLE_DEVICES set and its output on a pipe kraken reads; when the candidate's
// time is up the whole tree is stopped (SIGTERM, then SIGKILL after a grace period) and
// kraken waits until no process of it is left before the next candidate starts.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.h"

namespace kraken::profiling {

// Makes kraken the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER), so a
// workload that daemonizes a worker stays kraken's descendant and is stopped with it.
void BecomeSubreaper();

struct TrialChild {
  pid_t pid = 0;         // also its process group id
  int output_fd = -1;    // read end: the command's stdout and stderr together
};

// Forks and execs argv (PATH search) in a new process group, with `env` (NAME, value)
// added to kraken's environment and stdout + stderr on one pipe. Fails when the command
// cannot be executed (the child is then already reaped).
Result<TrialChild> StartTrialCommand(const std::vector<std::string>& argv,
                                     const std::vector<std::pair<std::string, std::string>>& env);

// Whether `program` can be executed as execvp would find it (PATH search when it has no
// '/'): checked once before the first candidate, so that a typo is one error line before
// anything has run.
Status CheckExecutable(const std::string& program);

struct TreeStop {
  std::optional<int> exit_code;  // of the command (pid), when kraken reaped it here
  std::string signal_used;       // "" (nothing left), "SIGTERM" or "SIGKILL"
  bool tree_gone = false;        // false: something survived SIGKILL for kill_wait_ns
};

// Stops everything below kraken: SIGTERM to the command's group and to every descendant,
// reaping as they end; after grace_ns SIGKILL to whatever is left; waits up to
// kill_wait_ns more. `command` is reaped here unless already reaped (then exit_code stays
// empty).
TreeStop StopProcessTree(pid_t command, int64_t grace_ns, int64_t kill_wait_ns = 5'000'000'000);

// Reads a child's output on its own thread, line by line, until the pipe closes or Stop().
class OutputReader {
 public:
  using LineFn = std::function<void(std::string_view line)>;
  // `on_line` runs on the reader thread.
  OutputReader(int fd, LineFn on_line);
  ~OutputReader();
  OutputReader(const OutputReader&) = delete;
  OutputReader& operator=(const OutputReader&) = delete;

  // Drains what is left in the pipe, then joins the thread and closes the fd.
  void Stop();

 private:
  void Run();
  int fd_;
  LineFn on_line_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace kraken::profiling
