#include "importers/ncu/ncu_units.h"

#include <cmath>

#include "base/text.h"

namespace kraken::ncu {
namespace {

// What ncu counts, as it spells it in units. "s" only occurs with a prefix or under a
// slash ("us", "Gbyte/s"); it is the same second as "nsecond".
std::optional<std::string> KnownWord(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "byte",  "bit",    "second", "hz",       "cycle",   "inst",      "warp",        "block",
      "thread", "sector", "request", "register", "cluster", "wavefront", "transaction", "issue",
      "flop",  "%"};
  if (EqualsIgnoreCase(word, "s")) return std::string("second");
  for (std::string_view known : kWords)
    if (EqualsIgnoreCase(word, known)) return std::string(known);
  return std::nullopt;
}

// Decimal SI prefixes as powers of ten. Case matters except for kilo: "Mbyte" is mega,
// "msecond" is milli.
std::optional<int> PrefixExponent(char c) {
  switch (c) {
    case 'k':
    case 'K': return 3;
    case 'M': return 6;
    case 'G': return 9;
    case 'T': return 12;
    case 'P': return 15;
    case 'm': return -3;
    case 'u': return -6;
    case 'n': return -9;
    case 'p': return -12;
    default: return std::nullopt;
  }
}

struct UnitPart {
  int exponent = 0;
  std::string word;
};

std::optional<UnitPart> ParsePart(std::string_view text) {
  text = Trim(text);
  if (auto word = KnownWord(text)) return UnitPart{0, *word};
  if (text.size() < 2) return std::nullopt;
  auto exponent = PrefixExponent(text[0]);
  auto word = KnownWord(text.substr(1));
  if (!exponent || !word || *word == "%") return std::nullopt;
  return UnitPart{*exponent, *word};
}

// Integer powers of ten are exact in a double up to 1e22, so "us" scales by exactly 1000.
double PowerOfTen(int exponent) {
  double result = 1;
  for (int i = 0; i < std::abs(exponent); ++i) result *= 10;
  return exponent < 0 ? 1 / result : result;
}

}  // namespace

std::optional<NcuUnit> NormalizeNcuUnit(std::string_view unit) {
  unit = Trim(unit);
  if (unit.empty()) return NcuUnit{1, ""};
  std::vector<std::string_view> parts = Split(unit, '/');
  if (parts.size() > 2) return std::nullopt;
  auto numerator = ParsePart(parts[0]);
  if (!numerator) return std::nullopt;
  if (parts.size() == 1) {
    if (numerator->word == "second") return NcuUnit{PowerOfTen(numerator->exponent + 9), "ns"};
    return NcuUnit{PowerOfTen(numerator->exponent), numerator->word};
  }
  auto denominator = ParsePart(parts[1]);
  if (!denominator || denominator->word == "%") return std::nullopt;
  double scale = PowerOfTen(numerator->exponent - denominator->exponent);
  if (denominator->word == "second") {
    if (numerator->word == "cycle") return NcuUnit{scale, "hz"};
    return NcuUnit{scale, numerator->word + "/second"};
  }
  return NcuUnit{scale, numerator->word + "/" + denominator->word};
}

std::optional<double> ParseNcuNumber(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  std::optional<double> value = ParseDouble(text);
  if (!value) value = ParseHumanNumber(text);
  // "nan" and "inf" parse as doubles but are not measurements.
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

}  // namespace kraken::ncu
