// Durations as people write them on command lines and in config files: "100ms", "10s",
// "1m30s", "7d". Used by every flag and config key that takes a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kraken {

// One or more <number><unit> parts (units ns, us, ms, s, m, h, d; fractions allowed:
// "1.5s"), summed; a bare "0" is zero. nullopt for anything else, a negative amount, or
// more than 100 years.
std::optional<int64_t> ParseDurationNs(std::string_view text);

// The shortest exact spelling of a duration in the units above: 100000000 -> "100ms",
// 5400000000000 -> "1h30m", 0 -> "0".
std::string FormatDurationNs(int64_t ns);

}  // namespace kraken
