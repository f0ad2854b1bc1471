// Readers of simdjson On-Demand values for the Kineto event parser (internal to
// kraken_importers). The small readers are inline: they run for every member of every
// event, and the library is built without link-time optimization.
#pragma once

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "model/trace_events.h"

namespace kraken::kineto {

namespace od = simdjson::ondemand;

// The raw text of a scalar value: numbers as written, strings without their quotes
// (trace writers are not consistent: HIP runtime args hold "9216" as a string).
inline std::string_view ScalarToken(od::value& value) {
  std::string_view token = value.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t'))
    token.remove_suffix(1);
  if (token.size() >= 2 && token.front() == '"' && token.back() == '"') token = token.substr(1, token.size() - 2);
  return token;
}

inline bool TokenToInt(std::string_view token, int64_t* out) {
  if (token.empty()) return false;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), *out);
  if (ec == std::errc() && ptr == token.data() + token.size()) return true;
  double d = 0;
  auto [ptr2, ec2] = std::from_chars(token.data(), token.data() + token.size(), d);
  if (ec2 != std::errc() || ptr2 != token.data() + token.size() || !std::isfinite(d) || std::fabs(d) > 9.2e18)
    return false;
  *out = static_cast<int64_t>(d);
  return true;
}

inline bool TokenToDouble(std::string_view token, double* out) {
  if (token.empty()) return false;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), *out);
  return ec == std::errc() && ptr == token.data() + token.size();
}

inline bool ValueToInt(od::value& value, int64_t* out) { return TokenToInt(ScalarToken(value), out); }
inline bool ValueToDouble(od::value& value, double* out) { return TokenToDouble(ScalarToken(value), out); }

// Every reader below sets *error on a simdjson error: after one, the document must not
// be touched again (simdjson On-Demand's rule), so the caller abandons the event.
inline std::string_view ValueToString(od::value& value, bool* error) {
  std::string_view s;
  od::json_type type;
  if (value.type().get(type)) {
    *error = true;
    return {};
  }
  if (type == od::json_type::string) {
    if (value.get_string().get(s)) {
      *error = true;
      return {};
    }
    return s;
  }
  if (type == od::json_type::number || type == od::json_type::boolean) return ScalarToken(value);
  return {};
}

// A flat array of scalars as text ("[0, 1]"), e.g. "Process Group Ranks"; `storage`
// keeps the text alive until the event is committed.
std::string_view ArrayToText(od::value& value, std::string* storage, bool* error);

// A launch shape ("grid", "block"): up to three integers; anything but an array leaves
// `dim` as it is.
void ValueToDim3(od::value& value, Dim3* dim, bool* error);

// `key == "literal"` that compiles to a length check and one or two integer compares
// (string_view::compare is not inlined on this hot path).
template <size_t N>
inline bool KeyEquals(std::string_view key, const char (&literal)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), literal, N - 1) == 0;
}

}  // namespace kraken::kineto
