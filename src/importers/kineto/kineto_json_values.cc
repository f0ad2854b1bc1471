// The scalar and array readers of kineto_json_values.h that are too large to inline, and
// MicrosTextToNs (declared in kineto_event_parser.h).
#include "importers/kineto/kineto_json_values.h"

#include "importers/kineto/kineto_event_parser.h"

namespace kraken::kineto {

bool MicrosTextToNs(std::string_view text, int64_t* ns) {
  // Tokens come right-trimmed from ScalarToken; tests pass padded text too.
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  if (text.empty()) return false;
  bool negative = text.front() == '-';
  size_t i = negative ? 1 : 0;
  int64_t whole = 0;
  size_t digits = 0;
  bool overflow = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    overflow = overflow || __builtin_mul_overflow(whole, 10, &whole) ||
               __builtin_add_overflow(whole, text[i] - '0', &whole);
  }
  int64_t fraction_ns = 0;
  bool round_up = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int place = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++place) {
      if (place < 3) {
        fraction_ns = fraction_ns * 10 + (text[i] - '0');
      } else if (place == 3) {
        round_up = text[i] >= '5';
      }
      ++digits;
    }
    for (; place < 3; ++place) fraction_ns *= 10;
  }
  if (digits == 0) return false;
  if (i != text.size()) {
    // Exponent or other forms: accept through double (rare; loses sub-ns only).
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return false;
    double scaled = value * 1000.0;
    if (std::fabs(scaled) > 9.2e18) return false;
    *ns = static_cast<int64_t>(std::llround(scaled));
    return true;
  }
  int64_t total = 0;
  if (overflow || __builtin_mul_overflow(whole, 1000, &total) ||
      __builtin_add_overflow(total, fraction_ns + (round_up ? 1 : 0), &total))
    return false;
  *ns = negative ? -total : total;
  return true;
}

std::string_view ArrayToText(od::value& value, std::string* storage, bool* error) {
  od::array array;
  if (value.get_array().get(array)) {
    *error = true;
    return {};
  }
  // Not assign("["): GCC 12 at -O3 reports a false -Wrestrict on it once this function is
  // compiled apart from its caller.
  storage->assign(1, '[');
  bool first = true;
  for (auto element : array) {
    od::value v;
    od::json_type type;
    if (element.get(v) || v.type().get(type)) {
      *error = true;
      return {};
    }
    if (!first) storage->append(", ");
    first = false;
    if (type == od::json_type::string) {
      std::string_view s;
      if (v.get_string().get(s)) {
        *error = true;
        return {};
      }
      storage->append(s);
    } else if (type == od::json_type::number || type == od::json_type::boolean) {
      storage->append(ScalarToken(v));
    } else {
      return {};
    }
  }
  storage->append("]");
  return *storage;
}

void ValueToDim3(od::value& value, Dim3* dim, bool* error) {
  od::json_type type;
  if (value.type().get(type)) {
    *error = true;
    return;
  }
  // Triton launcher ops write "grid": "grid(100,)": not a launch shape, not an error.
  if (type != od::json_type::array) return;
  od::array array;
  if (value.get_array().get(array)) {
    *error = true;
    return;
  }
  size_t i = 0;
  for (auto element : array) {
    od::value v;
    if (element.get(v)) {
      *error = true;
      return;
    }
    int64_t n = 0;
    if (i < 3 && ValueToInt(v, &n)) (*dim)[i] = static_cast<int32_t>(n);
    ++i;
  }
}

}  // namespace kraken::kineto
