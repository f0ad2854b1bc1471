#include "server/json_body.h"

#include <simdjson.h>

#include <cmath>

#include "base/number_input.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken::server {

Result<JsonBody> JsonBody::Parse(std::string_view body) {
  JsonBody out;
  if (Trim(body).empty()) return out;  // the legacy service reads an empty body as {}
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(body);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS) return InvalidInput("the body is not valid JSON");
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) return InvalidInput("the body must be a JSON object");
  for (auto field : object) {
    std::string key(field.key);
    simdjson::dom::element value = field.value;
    switch (value.type()) {
      case simdjson::dom::element_type::STRING:
        out.fields_[key] = std::string(value.get_string().value_unsafe());
        break;
      case simdjson::dom::element_type::INT64:
      case simdjson::dom::element_type::UINT64:
      case simdjson::dom::element_type::DOUBLE: {
        double number = 0;
        if (value.get_double().get(number) == simdjson::SUCCESS) out.fields_[key] = number;
        break;
      }
      case simdjson::dom::element_type::BOOL:
        out.fields_[key] = value.get_bool().value_unsafe();
        break;
      case simdjson::dom::element_type::ARRAY: {
        std::vector<std::string> items;
        std::vector<double> numbers;
        simdjson::dom::array array;
        bool is_array = value.get_array().get(array) == simdjson::SUCCESS;
        bool all_strings = is_array, all_numbers = is_array;
        if (is_array) {
          for (simdjson::dom::element item : array) {
            std::string_view text;
            double number = 0;
            if (item.get_string().get(text) != simdjson::SUCCESS) all_strings = false;
            else items.emplace_back(text);
            if (!item.is_number() || item.get_double().get(number) != simdjson::SUCCESS) all_numbers = false;
            else numbers.push_back(number);
          }
        }
        if (all_strings) out.lists_[key] = std::move(items);
        else out.lists_[key] = std::nullopt;
        if (all_numbers) out.number_lists_[key] = std::move(numbers);
        else out.number_lists_[key] = std::nullopt;
        break;
      }
      case simdjson::dom::element_type::NULL_VALUE:
        out.fields_[key] = JsonNull{};
        break;
      default:
        break;
    }
  }
  return out;
}

Result<std::string> JsonBody::String(const std::string& key) const {
  auto it = fields_.find(key);
  if (it == fields_.end() || std::holds_alternative<JsonNull>(it->second)) return std::string();
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  return InvalidInput("'" + key + "' must be a string");
}

namespace {

// "1e+12" for bounds written as decimals would hide the range: bounds print plainly.
std::string BoundText(double bound) {
  if (bound == std::floor(bound) && std::fabs(bound) < 1e16) return std::to_string(static_cast<int64_t>(bound));
  return FormatGeneral(bound);
}

Status OutOfRange(const std::string& key, double low, double high) {
  return InvalidInput("'" + key + "' must be a number in [" + BoundText(low) + ", " + BoundText(high) + "]");
}

}  // namespace

Result<std::optional<double>> JsonBody::Number(const std::string& key, double low, double high) const {
  auto it = fields_.find(key);
  if (it == fields_.end() || std::holds_alternative<JsonNull>(it->second)) return std::optional<double>();
  std::optional<double> value;
  if (const auto* d = std::get_if<double>(&it->second)) value = BoundedNumber(*d, low, high);
  if (const auto* s = std::get_if<std::string>(&it->second)) value = ParseBoundedNumber(Trim(*s), low, high);
  if (!value) return OutOfRange(key, low, high);
  return value;
}

Result<std::vector<std::string>> JsonBody::StringList(const std::string& key) const {
  auto list = lists_.find(key);
  if (list != lists_.end()) {
    if (!list->second) return InvalidInput("'" + key + "' must be a string or an array of strings");
    return *list->second;
  }
  KRAKEN_ASSIGN_OR_RETURN(std::string single, String(key));
  if (single.empty()) return std::vector<std::string>();
  return std::vector<std::string>{single};
}

Result<bool> JsonBody::Bool(const std::string& key) const {
  auto it = fields_.find(key);
  if (it == fields_.end() || std::holds_alternative<JsonNull>(it->second)) return false;
  if (const auto* b = std::get_if<bool>(&it->second)) return *b;
  if (const auto* s = std::get_if<std::string>(&it->second)) {
    if (*s == "true") return true;
    if (*s == "false") return false;
  }
  return InvalidInput("'" + key + "' must be true or false");
}

Result<std::vector<double>> JsonBody::NumberList(const std::string& key, double low, double high) const {
  auto list = number_lists_.find(key);
  if (list != number_lists_.end()) {
    if (!list->second) return InvalidInput("'" + key + "' must be a number or an array of numbers");
    for (double value : *list->second)
      if (!BoundedNumber(value, low, high)) return OutOfRange(key, low, high);
    return *list->second;
  }
  KRAKEN_ASSIGN_OR_RETURN(std::optional<double> single, Number(key, low, high));
  if (!single) return std::vector<double>();
  return std::vector<double>{*single};
}

}  // namespace kraken::server
