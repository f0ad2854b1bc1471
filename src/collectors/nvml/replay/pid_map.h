// Test-only: KRAKEN_NVML_REPLAY_PID_MAP makes the replay report a captured process under a
// pid of this machine, so that `kraken profile` can be tested end to end: a capture's pids
// never belong to the process tree a test starts. See docs/nvml-capture-format.md.
//
//   KRAKEN_NVML_REPLAY_PID_MAP=11345:self/0,11327:self/0/0,11328:4242
//
// "self/0" is the first child (lowest pid) of the process that loaded the replay library,
// "self/0/1" the second child of that child; a number is taken as it is. A target that does
// not exist (yet, or any more) leaves the captured pid unmapped in that call.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::nvml::replay {

struct PidMapEntry {
  uint32_t captured = 0;
  bool relative = false;           // "self/..." rather than a literal pid
  uint32_t pid = 0;                // the literal pid
  std::vector<uint32_t> path;      // child ranks below this process
};

// Parses the variable's value; false with `error` set when it is malformed.
bool ParsePidMap(std::string_view text, std::vector<PidMapEntry>& entries, std::string& error);

// The pid to report for `captured`: its mapping resolved now, or `captured` itself.
uint32_t MapCapturedPid(const std::vector<PidMapEntry>& entries, uint32_t captured);

}  // namespace kraken::nvml::replay
