// What every fuzz target asks of a parser's answer besides not crashing.
#pragma once

namespace kraken::fuzzing {

// An error must explain itself: a failed result with an empty message traps.
template <typename Result>
void CheckExplained(const Result& result) {
  if (!result.ok() && result.status().message().empty()) __builtin_trap();
}

}  // namespace kraken::fuzzing
