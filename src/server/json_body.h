// Request bodies of the JSON endpoints: one flat object whose scalar fields are read by
// name. Anything that is not a JSON object is refused (400 bad_json).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"

namespace kraken::server {

struct JsonNull {};
using JsonScalar = std::variant<JsonNull, bool, double, std::string>;

class JsonBody {
 public:
  static Result<JsonBody> Parse(std::string_view body);

  bool Has(const std::string& key) const { return fields_.count(key) > 0; }
  // The string field; absent or null -> "" ; another type -> InvalidInput naming the key.
  Result<std::string> String(const std::string& key) const;
  // The number field, finite and within [low, high] (ParseBoundedNumber; numbers written
  // as strings are accepted: legacy clients send "arithmetic_intensity":"85"); absent or
  // null -> nullopt; else InvalidInput "'KEY' must be a number in [LOW, HIGH]".
  Result<std::optional<double>> Number(const std::string& key, double low, double high) const;
  // A string or an array of strings; absent or null -> empty.
  Result<std::vector<std::string>> StringList(const std::string& key) const;
  // true/false (or "true"/"false"); absent or null -> false.
  Result<bool> Bool(const std::string& key) const;
  // A number or an array of numbers, each within [low, high]; absent or null -> empty.
  Result<std::vector<double>> NumberList(const std::string& key, double low, double high) const;

 private:
  std::map<std::string, JsonScalar> fields_;  // nested objects are ignored
  std::map<std::string, std::optional<std::vector<std::string>>> lists_;  // nullopt: not all strings
  std::map<std::string, std::optional<std::vector<double>>> number_lists_;  // nullopt: not all numbers
};

}  // namespace kraken::server
