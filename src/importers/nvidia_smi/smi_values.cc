#include "importers/nvidia_smi/smi_values.h"

#include <array>
#include <chrono>

#include "base/text.h"

namespace kraken::nvidia_smi {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr double kMiB = 1024.0 * 1024.0;

std::optional<int> Digits(std::string_view text, size_t pos, size_t count) {
  if (pos + count > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    char c = text[i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// Reads "HH:MM:SS" at `pos`; returns seconds since midnight.
std::optional<int> ClockAt(std::string_view text, size_t pos) {
  auto h = Digits(text, pos, 2), m = Digits(text, pos + 3, 2), s = Digits(text, pos + 6, 2);
  if (!h || !m || !s || text[pos + 2] != ':' || text[pos + 5] != ':') return std::nullopt;
  if (*h > 23 || *m > 59 || *s > 60) return std::nullopt;
  return *h * 3600 + *m * 60 + *s;
}

}  // namespace

bool IsMissingMarker(std::string_view text) {
  text = Trim(text);
  if (text.empty() || text == "-" || EqualsIgnoreCase(text, "N/A")) return true;
  return text.front() == '[' && text.back() == ']';
}

SmiValue ParseSmiValue(std::string_view text) {
  text = Trim(text);
  SmiValue out;
  if (IsMissingMarker(text)) return out;
  char first = text.front();
  if (!(first >= '0' && first <= '9') && first != '-' && first != '+' && first != '.') {
    out.kind = ValueKind::kText;  // "Enabled", "P0", "Not Active": no number to look for
    return out;
  }
  if (auto number = ParseDouble(text)) {
    out.kind = ValueKind::kNumber;
    out.number = *number;
    return out;
  }
  // "2566 MiB", "100.00 %", "0 us", "16x" (link width), "45 C".
  size_t split = text.find(' ');
  std::string_view number_part = text.substr(0, split);
  std::string_view unit = split == std::string_view::npos ? std::string_view() : Trim(text.substr(split + 1));
  if (split == std::string_view::npos && text.size() > 1 && (text.back() == 'x' || text.back() == '%')) {
    number_part = text.substr(0, text.size() - 1);
    unit = text.substr(text.size() - 1);
  }
  auto number = ParseDouble(number_part);
  if (!number || unit.find(' ') != std::string_view::npos) {
    out.kind = ValueKind::kText;
    return out;
  }
  out.kind = ValueKind::kNumber;
  out.number = *number;
  out.unit = unit;
  return out;
}

std::optional<double> ToMetricUnit(Metric metric, double value, std::string_view unit) {
  std::string_view target = GetMetricInfo(metric).unit;
  if (target == "B") {
    // nvidia-smi's "MB" (dmon/pmon fb) is the same MiB that --query-gpu prints.
    if (unit == "MiB" || unit == "MB") return value * kMiB;
    if (unit == "KiB" || unit == "KB") return value * 1024.0;
    if (unit == "GiB" || unit == "GB") return value * kMiB * 1024.0;
    if (unit == "B") return value;
    return std::nullopt;
  }
  if (target == "B/s") {
    // NVML reports PCIe throughput in "KB/s" without saying 1000 or 1024; kraken reads
    // the throughput units as decimal (rates, not memory sizes).
    if (unit == "KB/s") return value * 1e3;
    if (unit == "MB/s") return value * 1e6;
    if (unit == "GB/s") return value * 1e9;
    if (unit == "B/s") return value;
    return std::nullopt;
  }
  if (target == "W") {
    if (unit == "W" || unit.empty()) return value;
    if (unit == "mW") return value / 1000.0;
    return std::nullopt;
  }
  if (target == "MHz") {
    if (unit == "MHz" || unit.empty()) return value;
    if (unit == "GHz") return value * 1000.0;
    return std::nullopt;
  }
  if (target == "%" || target == "C") return unit == target || unit.empty() ? std::optional(value) : std::nullopt;
  if (target == "mJ") {
    if (unit == "mJ" || unit.empty()) return value;
    if (unit == "J") return value * 1000.0;
    return std::nullopt;
  }
  return value;  // counts, codes, ratios: no unit to convert
}

std::optional<double> FlagValue(Metric metric, std::string_view text) {
  if (GetMetricInfo(metric).unit != "flag") return std::nullopt;
  text = Trim(text);
  if (EqualsIgnoreCase(text, "Yes")) return 1.0;
  if (EqualsIgnoreCase(text, "No")) return 0.0;
  return std::nullopt;
}

std::optional<TimeNs> CivilToEpochNs(int year, int month, int day, int hour, int minute, int second) {
  using namespace std::chrono;
  year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                      std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok() || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return std::nullopt;
  }
  // Nanoseconds since 1970 in 64 bits reach from 1677-09-21 to 2262-04-11; a year outside
  // the whole years between is no time kraken can hold (nor a real nvidia-smi report).
  if (year < 1678 || year > 2261) return std::nullopt;
  int64_t days = sys_days(date).time_since_epoch().count();
  return (days * 86400 + hour * 3600 + minute * 60 + second) * kNsPerSecond;
}

std::optional<TimeNs> ParseQueryTimestamp(std::string_view text) {
  text = Trim(text);
  // 2026/07/14 08:12:38.696
  auto year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  if (!year || !month || !day || text.size() < 19 || text[4] != '/' || text[7] != '/' || text[10] != ' ') {
    return std::nullopt;
  }
  auto clock = ClockAt(text, 11);
  if (!clock) return std::nullopt;
  auto base = CivilToEpochNs(*year, *month, *day, 0, 0, 0);
  if (!base) return std::nullopt;
  int64_t fraction_ns = 0;
  if (text.size() > 19) {
    if (text[19] != '.') return std::nullopt;
    std::string_view digits = text.substr(20);
    if (digits.empty() || digits.size() > 9) return std::nullopt;
    auto value = Digits(digits, 0, digits.size());
    if (!value) return std::nullopt;
    fraction_ns = *value;
    for (size_t i = digits.size(); i < 9; ++i) fraction_ns *= 10;
  }
  return *base + static_cast<int64_t>(*clock) * kNsPerSecond + fraction_ns;
}

std::optional<TimeNs> ParseReportTimestamp(std::string_view text) {
  // "Tue Jul 14 08:12:38 2026" (asctime layout; the day may be space-padded: "Jul  3").
  auto parts = SplitWhitespace(Trim(text));
  if (parts.size() != 5) return std::nullopt;
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int month = 0;
  for (size_t i = 0; i < kMonths.size(); ++i)
    if (parts[1] == kMonths[i]) month = static_cast<int>(i) + 1;
  auto day = ParseInt64(parts[2]);
  auto year = ParseInt64(parts[4]);
  if (month == 0 || !day || !year || parts[3].size() != 8 || *year < 1970 || *year > 9999) return std::nullopt;
  auto clock = ClockAt(parts[3], 0);
  if (!clock) return std::nullopt;
  auto base = CivilToEpochNs(static_cast<int>(*year), month, static_cast<int>(*day), 0, 0, 0);
  if (!base) return std::nullopt;
  return *base + static_cast<int64_t>(*clock) * kNsPerSecond;
}

std::optional<TimeNs> ParseMonitorDate(std::string_view text) {
  text = Trim(text);
  std::optional<int> year, month, day;
  if (text.size() == 8) {
    year = Digits(text, 0, 4), month = Digits(text, 4, 2), day = Digits(text, 6, 2);
  } else if (text.size() == 10 && (text[4] == '/' || text[4] == '-') && text[7] == text[4]) {
    year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  }
  if (!year || !month || !day) return std::nullopt;
  return CivilToEpochNs(*year, *month, *day, 0, 0, 0);
}

std::optional<TimeNs> ParseTimeOfDay(std::string_view text) {
  text = Trim(text);
  if (text.size() != 8) return std::nullopt;
  auto clock = ClockAt(text, 0);
  if (!clock) return std::nullopt;
  return static_cast<int64_t>(*clock) * kNsPerSecond;
}

}  // namespace kraken::nvidia_smi
