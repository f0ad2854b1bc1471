#include "base/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace kraken {
namespace {

constexpr int64_t kUs = 1000;
constexpr int64_t kMs = 1000 * kUs;
constexpr int64_t kS = 1000 * kMs;
constexpr int64_t kMin = 60 * kS;
constexpr int64_t kHour = 60 * kMin;
constexpr int64_t kDay = 24 * kHour;
constexpr double kMaxNs = 100.0 * 365 * kDay;

struct Unit {
  std::string_view name;
  int64_t ns;
};
// Longest names first where one is a prefix of another ("ms" before "m").
constexpr Unit kUnits[] = {{"ns", 1}, {"us", kUs}, {"ms", kMs}, {"s", kS}, {"m", kMin}, {"h", kHour}, {"d", kDay}};

}  // namespace

std::optional<int64_t> ParseDurationNs(std::string_view text) {
  if (text == "0") return 0;
  if (text.empty()) return std::nullopt;
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    bool dot = false;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && !dot))) {
      dot = dot || text[i] == '.';
      ++i;
    }
    std::string number(text.substr(start, i - start));
    if (number.empty() || number == ".") return std::nullopt;
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    int64_t scale = 0;
    for (const Unit& u : kUnits)
      if (u.name == unit) scale = u.ns;
    if (scale == 0) return std::nullopt;
    total += std::strtod(number.c_str(), nullptr) * static_cast<double>(scale);
    if (total > kMaxNs) return std::nullopt;
  }
  return static_cast<int64_t>(std::llround(total));
}

std::string FormatDurationNs(int64_t ns) {
  if (ns == 0) return "0";
  std::string out;
  if (ns < 0) {
    out = "-";
    ns = -ns;
  }
  // Whole days, hours, minutes and seconds, then the sub-second rest in the largest unit
  // that writes it exactly.
  constexpr Unit kWhole[] = {{"d", kDay}, {"h", kHour}, {"m", kMin}, {"s", kS}};
  for (const Unit& u : kWhole) {
    if (ns >= u.ns) {
      out += std::to_string(ns / u.ns) + std::string(u.name);
      ns %= u.ns;
    }
  }
  if (ns > 0) {
    if (ns % kMs == 0) {
      out += std::to_string(ns / kMs) + "ms";
    } else if (ns % kUs == 0) {
      out += std::to_string(ns / kUs) + "us";
    } else {
      out += std::to_string(ns) + "ns";
    }
  }
  return out;
}

}  // namespace kraken
