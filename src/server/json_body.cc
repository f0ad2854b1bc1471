#include "server/json_body.h"

#include <simdjson.h>

#include <cmath>

#include "base/text.h"

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
        simdjson::dom::array array;
        bool all_strings = value.get_array().get(array) == simdjson::SUCCESS;
        if (all_strings) {
          for (simdjson::dom::element item : array) {
            std::string_view text;
            if (item.get_string().get(text) != simdjson::SUCCESS) all_strings = false;
            else items.emplace_back(text);
          }
        }
        if (all_strings) out.lists_[key] = std::move(items);
        else out.lists_[key] = std::nullopt;
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

Result<std::optional<double>> JsonBody::Number(const std::string& key) const {
  auto it = fields_.find(key);
  if (it == fields_.end() || std::holds_alternative<JsonNull>(it->second)) return std::optional<double>();
  std::optional<double> value;
  if (const auto* d = std::get_if<double>(&it->second)) value = *d;
  if (const auto* s = std::get_if<std::string>(&it->second)) value = ParseDouble(Trim(*s));
  if (!value || !std::isfinite(*value)) return InvalidInput("'" + key + "' must be a number");
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

}  // namespace kraken::server
