// SIGINT/SIGTERM in a traced process: the tracer writes what it has, then the signal does
// exactly what it would have done without the tracer. The handlers installed here call
// `on_signal` and then chain: to the handler the application had installed (which keeps
// running the program, e.g. Python's KeyboardInterrupt), or, when the action was the
// default (terminate), by restoring it and raising the signal again, so the process still
// dies of that signal (exit status 128+N). An ignored signal stays ignored. Handlers that
// the application installs later replace these; then the trace is closed at exit instead.
#pragma once

namespace kraken::cupti {

// `on_signal(signal, terminating)` runs inside the handler: it must be async-signal-safe.
// `terminating` is true when the signal's action is the default (the process will die).
using SignalCallback = void (*)(int signal, bool terminating);

// Installs the chaining handlers for SIGINT and SIGTERM once; later calls do nothing.
void InstallSignalChain(SignalCallback on_signal);

}  // namespace kraken::cupti
