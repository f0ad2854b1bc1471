#include "profiling/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kraken::profiling {
namespace {

// Written by the signal handlers; sig_atomic_t is what a handler may store to.
volatile sig_atomic_t g_stop_signal = 0;
volatile sig_atomic_t g_forward_pid = 0;

void OnStopSignal(int signal, siginfo_t* info, void*) {
  if (g_stop_signal == 0) g_stop_signal = signal;
  // SI_KERNEL: the terminal sent it to the whole foreground group, the child has it too.
  bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  if (!from_terminal && g_forward_pid > 0) kill(static_cast<pid_t>(g_forward_pid), signal);
}

}  // namespace

Result<pid_t> ForkExec(const std::vector<std::string>& argv, const std::function<void()>& prepare) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child reports a failed exec through this pipe; a successful exec closes it.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return IoError(std::string("pipe: ") + strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(report[0]);
    close(report[1]);
    return IoError(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    close(report[0]);
    if (prepare) prepare();
    execvp(args[0], args.data());
    int error = errno;
    ssize_t ignored = write(report[1], &error, sizeof(error));
    (void)ignored;
    _exit(127);
  }
  close(report[1]);
  int error = 0;
  ssize_t n = 0;
  do {
    n = read(report[0], &error, sizeof(error));
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof(error))) {
    WaitChildExit(pid);
    return InvalidInput("cannot run '" + argv[0] + "': " + strerror(error));
  }
  return pid;
}

Result<pid_t> StartCommand(const std::vector<std::string>& argv) {
  if (argv.empty()) return InvalidInput("no command to profile: kraken profile [options] -- CMD ARGS...");
  // exec resets kraken's handlers to the default: the command sees SIGINT as usual.
  return ForkExec(argv, {});
}

void InstallStopSignalHandlers() {
  struct sigaction action {};
  action.sa_sigaction = OnStopSignal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void SetSignalForwardPid(pid_t pid) { g_forward_pid = static_cast<sig_atomic_t>(pid); }

int StopSignalReceived() { return g_stop_signal; }

int ExitCodeOfWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

std::optional<int> PollChildExit(pid_t pid) {
  int status = 0;
  pid_t done = waitpid(pid, &status, WNOHANG);
  if (done == pid) return ExitCodeOfWaitStatus(status);
  return std::nullopt;
}

int WaitChildExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  return ExitCodeOfWaitStatus(status);
}

}  // namespace kraken::profiling
