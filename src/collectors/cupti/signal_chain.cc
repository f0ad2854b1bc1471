#include "collectors/cupti/signal_chain.h"

#include <errno.h>
#include <signal.h>

#include <atomic>

namespace kraken::cupti {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM};

SignalCallback g_on_signal = nullptr;
struct sigaction g_previous[NSIG];
std::atomic<bool> g_installed{false};

bool IsDefault(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_DFL;
}

bool IsIgnored(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_IGN;
}

void OnSignal(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const struct sigaction& previous = g_previous[signal];
  if (IsIgnored(previous)) {
    errno = saved_errno;
    return;
  }
  const bool terminating = IsDefault(previous);
  if (g_on_signal != nullptr) g_on_signal(signal, terminating);
  if (terminating) {
    // The signal is blocked while this handler runs: raised now with the default action
    // back in place, it is delivered (and kills the process) as the handler returns.
    sigaction(signal, &previous, nullptr);
    raise(signal);
  } else if ((previous.sa_flags & SA_SIGINFO) != 0) {
    previous.sa_sigaction(signal, info, context);
  } else {
    previous.sa_handler(signal);
  }
  errno = saved_errno;
}

}  // namespace

void InstallSignalChain(SignalCallback on_signal) {
  if (g_installed.exchange(true)) return;
  g_on_signal = on_signal;
  for (int signal : kSignals) {
    sigaction(signal, nullptr, &g_previous[signal]);
    struct sigaction action {};
    action.sa_sigaction = OnSignal;
    // The application's restart and stack choices stay in force: Python, for one, wants
    // its blocking calls interrupted (no SA_RESTART) to raise KeyboardInterrupt.
    action.sa_flags = SA_SIGINFO | (g_previous[signal].sa_flags & (SA_RESTART | SA_ONSTACK));
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, &g_previous[signal]);
  }
}

}  // namespace kraken::cupti
