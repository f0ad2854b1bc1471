// Numbers given by a person or a request (a flag, a --workload field, a plan CSV cell, an
// API body) go through one parser: finite and within [low, high]. "inf", "nan" and 1e999
// never pass, so a value later cast to an integer (a GPU count) cannot overflow and a
// "not negative" check cannot be slipped past with NaN. Importers that read tools' "nan"
// cells keep using ParseDouble.
#pragma once

#include <cmath>
#include <optional>
#include <string_view>

#include "base/text.h"

namespace kraken {

// A number already parsed (a JSON number of an API body) passes the same check.
inline std::optional<double> BoundedNumber(double value, double low, double high) {
  if (!std::isfinite(value) || value < low || value > high) return std::nullopt;
  return value;
}

inline std::optional<double> ParseBoundedNumber(std::string_view s, double low, double high) {
  std::optional<double> value = ParseDouble(s);
  if (!value) return std::nullopt;
  return BoundedNumber(*value, low, high);
}

// For validators of text that may or may not be a number: true when `s` spells a number
// that is not finite ("nan", "-inf", "1e999").
inline bool IsNonFiniteNumber(std::string_view s) {
  std::optional<double> value = ParseDouble(s);
  return value && !std::isfinite(*value);
}

}  // namespace kraken
