#include "importers/common/civil_time.h"

#include <cmath>

#include "base/text.h"

namespace kraken {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kSecondsPerDay = 86'400;
// 2262-04-11 is where int64 nanoseconds since 1970 overflow.
constexpr double kMaxUnixSeconds = 9.2e9;

// Parses exactly `width` decimal digits.
std::optional<int64_t> Digits(std::string_view text, size_t pos, size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t i = pos; i < pos + width; ++i) {
    char c = text[i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int64_t DaysInMonth(int64_t y, int64_t m) {
  static constexpr int64_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

}  // namespace

std::optional<int64_t> DaysFromCivil(int64_t year, int64_t month, int64_t day) {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month))
    return std::nullopt;
  // Count in eras of 400 years starting on March 1st, so that the leap day ends a year.
  int64_t y = month <= 2 ? year - 1 : year;
  int64_t era = y / 400;
  int64_t year_of_era = y - era * 400;
  int64_t month_from_march = month > 2 ? month - 3 : month + 9;
  int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

std::optional<int64_t> ParseCivilTimeNs(std::string_view text) {
  text = Trim(text);
  auto year = Digits(text, 0, 4);
  auto month = Digits(text, 5, 2);
  auto day = Digits(text, 8, 2);
  if (!year || !month || !day || text[4] != '-' || text[7] != '-') return std::nullopt;
  auto days = DaysFromCivil(*year, *month, *day);
  if (!days || *days < 0 || *days > 106'000) return std::nullopt;  // 1970 .. 2260
  int64_t ns = *days * kSecondsPerDay * kNsPerSecond;
  if (text.size() == 10) return ns;
  if (text.size() < 19 || (text[10] != ' ' && text[10] != 'T') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  auto hour = Digits(text, 11, 2);
  auto minute = Digits(text, 14, 2);
  auto second = Digits(text, 17, 2);
  if (!hour || !minute || !second || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  ns += ((*hour * 60 + *minute) * 60 + *second) * kNsPerSecond;
  if (text.size() == 19) return ns;
  if (text[19] != '.' || text.size() == 20 || text.size() > 29) return std::nullopt;
  int64_t fraction = 0;
  int64_t scale = kNsPerSecond;
  for (size_t i = 20; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    scale /= 10;
    fraction += (text[i] - '0') * scale;
  }
  return ns + fraction;
}

std::optional<int64_t> ParseUnixSecondsNs(std::string_view text) {
  std::string_view trimmed = Trim(text);
  // Integer seconds are exact; only a fraction goes through floating point.
  if (auto whole = ParseInt64(trimmed)) {
    if (*whole < 0 || *whole > static_cast<int64_t>(kMaxUnixSeconds)) return std::nullopt;
    return *whole * kNsPerSecond;
  }
  auto seconds = ParseDouble(trimmed);
  if (!seconds || !std::isfinite(*seconds) || *seconds < 0 || *seconds > kMaxUnixSeconds) return std::nullopt;
  size_t dot = trimmed.find('.');
  if (dot != std::string_view::npos && trimmed.find_first_of("eE") == std::string_view::npos) {
    // "1662858720.25": the integer part exactly, the first nine decimals as nanoseconds.
    auto whole = dot == 0 ? std::optional<int64_t>(0) : ParseInt64(trimmed.substr(0, dot));
    int64_t fraction = 0, scale = kNsPerSecond;
    bool digits = true;
    for (size_t i = dot + 1; i < trimmed.size(); ++i) {
      char c = trimmed[i];
      if (c < '0' || c > '9') digits = false;
      if (!digits) break;
      scale /= 10;
      fraction += (c - '0') * scale;
    }
    if (whole && digits) return *whole * kNsPerSecond + fraction;
  }
  return std::llround(*seconds * static_cast<double>(kNsPerSecond));
}

}  // namespace kraken
