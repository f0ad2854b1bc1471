// Values and clocks as nvidia-smi prints them: "2566 MiB", "69.85 W", "[N/A]", "-",
// "2026/07/14 08:12:38.696", "Tue Jul 14 08:12:38 2026", and the conversion of a number
// in nvidia-smi's unit into the unit a canonical Metric's name says.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/metrics.h"
#include "model/trace_events.h"

namespace kraken::nvidia_smi {

enum class ValueKind { kMissing, kNumber, kText };

struct SmiValue {
  ValueKind kind = ValueKind::kMissing;
  double number = 0;
  std::string_view unit;  // the suffix printed after the number ("MiB"), empty when none
};

// True for what nvidia-smi prints instead of a value: "", "-", "N/A" and every bracketed
// placeholder ("[N/A]", "[Not Supported]", "[Requested functionality has been deprecated]").
bool IsMissingMarker(std::string_view text);

// "2566 MiB" -> 2566 MiB; "9.0" -> 9; "[N/A]" -> missing; "Enabled" -> text.
SmiValue ParseSmiValue(std::string_view text);

// Converts `value` printed in `unit` into the unit of `metric` (bytes, W, MHz, %, C, B/s).
// nullopt when the unit is unknown for that metric, or empty where no default is safe.
std::optional<double> ToMetricUnit(Metric metric, double value, std::string_view unit);

// A flag metric's value (unit "flag": remapped_rows_pending, ...): nvidia-smi prints
// "Yes" / "No" for those, read as 1 / 0. nullopt for another metric or other text.
std::optional<double> FlagValue(Metric metric, std::string_view text);

// What metadata.attributes["timestamps"] says once a wall-clock time was read.
inline constexpr std::string_view kLocalTimeNote = "local time, zone unknown";

// nvidia-smi prints local time without a zone; these read it as if it were UTC, so the
// result is "Unix-epoch ns of the local wall clock" (the importer records that caveat).
// nullopt for an invalid date or a year outside 1678..2261 (what int64 ns can hold).
std::optional<TimeNs> CivilToEpochNs(int year, int month, int day, int hour, int minute, int second);
// "2026/07/14 08:12:38.696" (--query-* timestamp column).
std::optional<TimeNs> ParseQueryTimestamp(std::string_view text);
// "Tue Jul 14 08:12:38 2026" (-q Timestamp, the default table's first line).
std::optional<TimeNs> ParseReportTimestamp(std::string_view text);
// "20240104" or "2024/01/04" (dmon/pmon -o D): midnight of that day.
std::optional<TimeNs> ParseMonitorDate(std::string_view text);
// "13:54:35" (dmon/pmon -o T): ns since midnight.
std::optional<TimeNs> ParseTimeOfDay(std::string_view text);

}  // namespace kraken::nvidia_smi
