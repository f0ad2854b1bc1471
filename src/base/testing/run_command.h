// Runs a shell command from a test and keeps both output streams, so end-to-end tests of
// the kraken binary can assert exit code, standard output and the one-line error apart.
#pragma once

#include <string>

namespace kraken::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally (killed by a signal)
  std::string out;
  std::string err;
};

// `command` through /bin/sh: standard output read from a pipe, standard error through a
// temp file (a second pipe could fill up and block while the first is being read).
CommandResult RunCommand(const std::string& command);

}  // namespace kraken::testing
