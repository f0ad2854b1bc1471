#include "profiling/trial_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "profiling/child_process.h"
#include "profiling/process_tree.h"
#include "profiling/trial_throughput.h"

namespace kraken::profiling {
namespace {

using Clock = std::chrono::steady_clock;

// Every process below kraken now (zombies included until they are reaped).
std::set<int64_t> Descendants() {
  std::set<int64_t> tree = DescendantsOf({getpid()}, ReadParentMap());
  tree.erase(getpid());
  return tree;
}

// Reaps every ended child; records the command's status when it is among them.
void ReapAll(pid_t command, std::optional<int>& exit_code) {
  for (;;) {
    int status = 0;
    pid_t done = waitpid(-1, &status, WNOHANG);
    if (done <= 0) return;
    if (done == command) exit_code = ExitCodeOfWaitStatus(status);
  }
}

void SignalTree(pid_t command, int signal) {
  kill(-command, signal);  // the command's process group
  std::set<int64_t> tree = Descendants();
  for (int64_t pid : tree) kill(static_cast<pid_t>(pid), signal);  // those that left it
  // A stopped process (Ctrl-Z'd, or SIGTTIN) keeps SIGTERM pending until it runs again.
  if (signal == SIGTERM) {
    kill(-command, SIGCONT);
    for (int64_t pid : tree) kill(static_cast<pid_t>(pid), SIGCONT);
  }
}

// Reaps until nothing is left below kraken or the deadline passes.
bool WaitTreeGone(pid_t command, Clock::time_point deadline, std::optional<int>& exit_code) {
  for (;;) {
    ReapAll(command, exit_code);
    if (Descendants().empty()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

Status CheckExecutable(const std::string& program) {
  if (program.empty()) return InvalidInput("no command to try: kraken trial [options] -- CMD ARGS...");
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), X_OK) == 0) return Status::Ok();
    return InvalidInput("cannot run '" + program + "': " + strerror(errno));
  }
  const char* path = getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return Status::Ok();
    start = end + 1;
  }
  return InvalidInput("cannot run '" + program + "': not found in PATH");
}

void BecomeSubreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

Result<TrialChild> StartTrialCommand(const std::vector<std::string>& argv,
                                     const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return InvalidInput("no command to try: kraken trial [options] -- CMD ARGS...");
  int output[2];
  if (pipe2(output, O_CLOEXEC) != 0) return IoError(std::string("pipe: ") + strerror(errno));
  Result<pid_t> pid = ForkExec(argv, [&] {
    // Own group: kraken stops the candidate's whole tree with one kill(-pid) and a
    // terminal's Ctrl-C reaches kraken, which then stops the candidate itself.
    setpgid(0, 0);
    // A terminal's SIGINT/SIGTERM handlers of kraken are reset by exec; restore defaults for
    // the signals kraken stops trees with, in case kraken's parent ignored them.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    dup2(output[1], 1);
    dup2(output[1], 2);
    // Not in the terminal's foreground group: reading the terminal would stop it (SIGTTIN).
    int null_input = open("/dev/null", O_RDONLY);
    if (null_input >= 0) dup2(null_input, 0);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
  });
  close(output[1]);
  if (!pid.ok()) {
    close(output[0]);
    return pid.status();
  }
  // ForkExec returns once the exec succeeded, so the child's setpgid has run: a kill(-pid)
  // from here on reaches the whole group.
  return TrialChild{*pid, output[0]};
}

TreeStop StopProcessTree(pid_t command, int64_t grace_ns, int64_t kill_wait_ns) {
  TreeStop stop;
  ReapAll(command, stop.exit_code);
  if (Descendants().empty()) {
    stop.tree_gone = true;
    return stop;
  }
  stop.signal_used = "SIGTERM";
  SignalTree(command, SIGTERM);
  if (WaitTreeGone(command, Clock::now() + std::chrono::nanoseconds(grace_ns), stop.exit_code)) {
    stop.tree_gone = true;
    return stop;
  }
  stop.signal_used = "SIGKILL";
  SignalTree(command, SIGKILL);
  stop.tree_gone = WaitTreeGone(command, Clock::now() + std::chrono::nanoseconds(kill_wait_ns), stop.exit_code);
  return stop;
}

OutputReader::OutputReader(int fd, LineFn on_line) : fd_(fd), on_line_(std::move(on_line)) {
  thread_ = std::thread([this] { Run(); });
}

OutputReader::~OutputReader() { Stop(); }

void OutputReader::Stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  thread_.join();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void OutputReader::Run() {
  LineSplitter lines;
  char buffer[4096];
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int ready = poll(&p, 1, 20);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      ssize_t n = read(fd_, buffer, sizeof(buffer));
      if (n > 0) {
        lines.Feed(std::string_view(buffer, static_cast<size_t>(n)), on_line_);
        continue;  // read on before looking at stop_: Stop() drains what is there
      }
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;  // closed
    } else if (stop_) {
      break;  // nothing left to read and asked to stop
    }
  }
  lines.Finish(on_line_);
}

}  // namespace kraken::profiling
