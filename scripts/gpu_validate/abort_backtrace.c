/* Preloaded (LD_PRELOAD) into the per-kernel counters run of scripts/gpu-validate.sh: when
 * the traced program dies of SIGABRT, SIGSEGV or SIGBUS (a "double free or corruption" in
 * glibc is an abort), its native stack goes to stderr before the signal does what it would
 * have done, so that one device run says where, not only that. The frames of the tracer
 * (hidden symbols) print as library+offset: resolve them with addr2line on the same build. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void print_stack_and_die(int signal_number) {
  static const char header[] = "abort_backtrace: fatal signal, native stack:\n";
  void* frames[128];
  int count = backtrace(frames, 128);
  if (write(2, header, sizeof header - 1) < 0) return;
  backtrace_symbols_fd(frames, count, 2);
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

__attribute__((constructor)) static void install_fatal_signal_handlers(void) {
  void* warm[1];
  backtrace(warm, 1); /* loads libgcc_s now: not from inside the handler */
  signal(SIGABRT, print_stack_and_die);
  signal(SIGSEGV, print_stack_and_die);
  signal(SIGBUS, print_stack_and_die);
}
