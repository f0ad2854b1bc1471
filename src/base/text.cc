#include "base/text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace kraken {

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// ASCII only, inline: what std::tolower does in the "C" locale kraken runs in, without a
// libc call per byte (kernel-name matching scans long names against many patterns and was
// a third of `kraken analyze`'s instructions on the DLRM ranks).
static char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && Lower(haystack[i + j]) == Lower(needle[j])) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (Lower(a[i]) != Lower(b[i])) return false;
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::optional<double> ParseDouble(std::string_view s) {
  s = Trim(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    // from_chars rejects "inf"/"nan" spellings some tools print; accept them explicitly.
    std::string lower = ToLower(s);
    if (lower == "nan") return std::nan("");
    if (lower == "inf" || lower == "+inf") return HUGE_VAL;
    if (lower == "-inf") return -HUGE_VAL;
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  s = Trim(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseUint64(std::string_view s) {
  s = Trim(s);
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseHex(std::string_view s) {
  s = Trim(s);
  if (StartsWith(s, "0x") || StartsWith(s, "0X")) s.remove_prefix(2);
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseHumanNumber(std::string_view s) {
  s = Trim(s);
  if (auto v = ParseDouble(s)) return v;
  size_t commas = 0, dots = 0;
  for (char c : s) {
    commas += c == ',';
    dots += c == '.';
  }
  if (commas == 0 && dots <= 1) return std::nullopt;
  // Decide which character groups thousands: the one that is not the last separator,
  // or the only one present when it appears more than once or is followed by 3 digits.
  size_t last_comma = s.rfind(','), last_dot = s.rfind('.');
  char group = ',';
  if (commas > 0 && dots > 0) {
    group = last_comma > last_dot ? '.' : ',';
  } else if (dots > 1) {
    group = '.';
  } else if (commas == 1 && s.size() - last_comma - 1 != 3) {
    group = '\0';  // "1,5": a single decimal comma, no grouping at all
  }
  std::string cleaned;
  cleaned.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == group) {
      // A group separator must be followed by exactly three digits.
      for (size_t k = 1; k <= 3; ++k)
        if (i + k >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i + k]))) return std::nullopt;
      if (i + 4 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 4]))) return std::nullopt;
      continue;
    }
    cleaned.push_back(c == ',' ? '.' : c);
  }
  return ParseDouble(cleaned);
}

std::string_view BaseName(std::string_view path) {
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace kraken
