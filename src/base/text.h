// Small string helpers shared by the text-format importers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kraken {

std::string_view Trim(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string ToLower(std::string_view s);

// Splits on `sep`; fields keep their whitespace (callers Trim as needed).
std::vector<std::string_view> Split(std::string_view s, char sep);
// Splits on runs of spaces and tabs.
std::vector<std::string_view> SplitWhitespace(std::string_view s);

// Strict numbers: the whole (trimmed) text must be the number.
std::optional<double> ParseDouble(std::string_view s);
std::optional<int64_t> ParseInt64(std::string_view s);
std::optional<uint64_t> ParseUint64(std::string_view s);
// Hex with or without 0x ("0x233010DE").
std::optional<uint64_t> ParseHex(std::string_view s);

// Numbers as profilers print them for people: thousands separators ("1,937,900,416",
// "5,323,503,232.00"), and the European form ("1.234,5") when it is unambiguous.
std::optional<double> ParseHumanNumber(std::string_view s);

// Returns the text after the last '/' (file name of a path).
std::string_view BaseName(std::string_view path);

// Human-readable byte size ("1.5 GiB").
std::string FormatBytes(double bytes);

}  // namespace kraken
