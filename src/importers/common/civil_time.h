// Calendar timestamps as cluster traces print them ("2017-10-03 00:00:00", "2020-04-01")
// and Unix seconds with a fraction ("1662858720.0"), turned into Unix-epoch nanoseconds.
// The traces give no time zone; callers treat the text as UTC and say so.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kraken {

// Days since 1970-01-01 of a proleptic Gregorian date; nullopt for an impossible date.
std::optional<int64_t> DaysFromCivil(int64_t year, int64_t month, int64_t day);

// "YYYY-MM-DD HH:MM:SS" (a 'T' separator and a fraction of a second are accepted) or
// "YYYY-MM-DD" alone, read as UTC. Nothing else is accepted: no zone suffix, no other
// field order, every field in range.
std::optional<int64_t> ParseCivilTimeNs(std::string_view text);

// Unix seconds ("1662858720", "1662858720.25") to nanoseconds; nullopt when the text is not
// a finite number or lies outside years 1970..2262 (where int64 nanoseconds end).
std::optional<int64_t> ParseUnixSecondsNs(std::string_view text);

}  // namespace kraken
