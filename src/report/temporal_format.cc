// Number and time formatting shared by the temporal renderers.
#include <cstdio>

#include "report/temporal_output.h"

namespace kraken {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;

// Proleptic Gregorian date of a day count since 1970-01-01 (the inverse of the importers'
// DaysFromCivil), by 400-year eras starting on March 1st.
void CivilFromDays(int64_t days, int64_t* year, int64_t* month, int64_t* day) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t day_of_era = days - era * 146097;
  int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  int64_t month_from_march = (5 * day_of_year + 2) / 153;
  *day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
  *month = month_from_march < 10 ? month_from_march + 3 : month_from_march - 9;
  *year = year_of_era + era * 400 + (*month <= 2 ? 1 : 0);
}

}  // namespace

std::string FormatAxisTime(int64_t position, SampleAxis axis) {
  if (axis == SampleAxis::kIteration) return "iteration " + std::to_string(position);
  int64_t days = position / kDay, rest = position % kDay;
  if (rest < 0) {
    rest += kDay;
    --days;
  }
  int64_t y = 0, m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d), static_cast<long long>(rest / kHour),
                static_cast<long long>((rest % kHour) / kMinute), static_cast<long long>((rest % kMinute) / kSecond));
  return buf;
}

std::string FormatAxisSpan(int64_t amount, SampleAxis axis) {
  if (axis == SampleAxis::kIteration) return std::to_string(amount) + " it";
  if (amount <= 0) return "0s";
  struct Unit {
    int64_t size;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{kDay, "d"}, {kHour, "h"}, {kMinute, "m"}, {kSecond, "s"}};
  std::string out;
  int parts = 0;
  int64_t rest = amount;
  for (const Unit& u : kUnits) {
    if (rest >= u.size && parts < 2) {
      out += std::to_string(rest / u.size) + u.name;
      rest %= u.size;
      ++parts;
    } else if (parts > 0) {
      ++parts;  // at most two adjacent units: "1d2h", never "1d0h5m"
    }
  }
  if (out.empty()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3gms", static_cast<double>(amount) / 1e6);
    out = buf;
  }
  return out;
}

std::string FormatPhase(int64_t offset, int64_t period, SampleAxis axis) {
  char buf[32];
  if (axis == SampleAxis::kTimeNs && (period == kDay || period == 7 * kDay)) {
    static constexpr const char* kDays[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
    int64_t day = offset / kDay, in_day = offset % kDay;
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(in_day / kHour),
                  static_cast<long long>((in_day % kHour) / kMinute));
    if (period == kDay) return buf;
    std::string out = kDays[day % 7];
    out += ' ';
    out += buf;
    return out;
  }
  std::string out = "+";
  out += FormatAxisSpan(offset, axis);
  return out;
}

}  // namespace kraken
