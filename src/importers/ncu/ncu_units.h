// Nsight Compute values and units. ncu prints every value for people: thousands
// separators ("5,323,503,232.00") and units auto-scaled per value ("Mbyte", "us", "Ghz",
// "cycle/nsecond") unless --print-units base was given. kraken stores base units only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kraken::ncu {

// A unit as ncu printed it, reduced to a base unit: value_in_base = value * scale.
// Base units: "ns" for a time, "hz" for a frequency (cycle/second too), "<x>/second"
// for other rates, "%" and "" (a plain number) as they are, anything else with its SI
// prefix removed ("Mbyte" -> "byte", "Kinst/cycle" -> "inst/cycle").
struct NcuUnit {
  double scale = 1;
  std::string base;
};

// Nullopt for a unit kraken does not know (a word outside ncu's vocabulary, a prefix it
// cannot read): the value is then not stored. ncu scales by powers of 1000 ("Mbyte" =
// 1e6 bytes; the RTX 5090 files check out: 2.33 Mbyte in 6.75 us = 345.14 Gbyte/s).
std::optional<NcuUnit> NormalizeNcuUnit(std::string_view unit);

// A number as ncu prints it: plain, or with thousands separators. Nullopt for "n/a",
// enum names ("PolicySpread") and instanced lists ("32.00; 32.00; ...").
std::optional<double> ParseNcuNumber(std::string_view text);

}  // namespace kraken::ncu
