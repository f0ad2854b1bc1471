#include "capi/options.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace kraken::capi {

OptionReader::OptionReader(const char* json) {
  if (json == nullptr || *json == '\0') return;
  simdjson::dom::element root;
  if (parser_.parse(json, std::strlen(json)).get(root) != simdjson::SUCCESS) {
    Fail("options are not valid JSON");
    return;
  }
  if (root.get_object().get(object_) != simdjson::SUCCESS) {
    Fail("options must be a JSON object, e.g. {\"device\": \"h100-sxm\"}");
    return;
  }
  has_object_ = true;
}

void OptionReader::Fail(std::string message) {
  if (!problem_) problem_ = std::move(message);
}

void OptionReader::WrongType(std::string_view key, const char* expected) {
  Fail("option '" + std::string(key) + "' must be " + expected);
}

std::optional<simdjson::dom::element> OptionReader::Find(std::string_view key) {
  known_.emplace_back(key);
  if (!has_object_) return std::nullopt;
  simdjson::dom::element value;
  if (object_.at_key(key).get(value) != simdjson::SUCCESS || value.is_null()) return std::nullopt;
  return value;
}

void OptionReader::Read(std::string_view key, std::string* value) {
  auto element = Find(key);
  if (!element) return;
  std::string_view text;
  if (element->get_string().get(text) != simdjson::SUCCESS) return WrongType(key, "a string");
  *value = std::string(text);
}

void OptionReader::Read(std::string_view key, double* value) {
  auto element = Find(key);
  if (!element) return;
  double number = 0;
  if (element->get_double().get(number) != simdjson::SUCCESS) return WrongType(key, "a number");
  *value = number;
}

void OptionReader::Read(std::string_view key, int64_t* value) {
  auto element = Find(key);
  if (!element) return;
  double number = 0;
  if (element->get_double().get(number) != simdjson::SUCCESS || number != std::floor(number) ||
      std::fabs(number) > 9e15)
    return WrongType(key, "a whole number");
  *value = static_cast<int64_t>(number);
}

void OptionReader::Read(std::string_view key, int* value) {
  int64_t number = *value;
  Read(key, &number);
  if (number < -(int64_t{1} << 31) || number >= (int64_t{1} << 31)) return WrongType(key, "a whole number");
  *value = static_cast<int>(number);
}

void OptionReader::Read(std::string_view key, size_t* value) {
  int64_t number = static_cast<int64_t>(*value);
  Read(key, &number);
  if (number < 0) return WrongType(key, "a whole number >= 0");
  *value = static_cast<size_t>(number);
}

void OptionReader::Read(std::string_view key, bool* value) {
  auto element = Find(key);
  if (!element) return;
  bool flag = false;
  if (element->get_bool().get(flag) != simdjson::SUCCESS) return WrongType(key, "true or false");
  *value = flag;
}

void OptionReader::Read(std::string_view key, std::vector<std::string>* value) {
  auto element = Find(key);
  if (!element) return;
  std::string_view text;
  if (element->get_string().get(text) == simdjson::SUCCESS) {
    *value = {std::string(text)};
    return;
  }
  simdjson::dom::array array;
  if (element->get_array().get(array) != simdjson::SUCCESS) return WrongType(key, "a string or an array of strings");
  std::vector<std::string> items;
  for (simdjson::dom::element item : array) {
    if (item.get_string().get(text) != simdjson::SUCCESS) return WrongType(key, "a string or an array of strings");
    items.emplace_back(text);
  }
  *value = std::move(items);
}

void OptionReader::Read(std::string_view key, std::vector<int64_t>* value) {
  auto element = Find(key);
  if (!element) return;
  std::vector<simdjson::dom::element> items;
  simdjson::dom::array array;
  if (element->get_array().get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element item : array) items.push_back(item);
  } else {
    items.push_back(*element);
  }
  std::vector<int64_t> numbers;
  for (simdjson::dom::element item : items) {
    double number = 0;
    if (item.get_double().get(number) != simdjson::SUCCESS || number != std::floor(number) ||
        std::fabs(number) > 9e15)
      return WrongType(key, "a whole number or an array of whole numbers");
    numbers.push_back(static_cast<int64_t>(number));
  }
  *value = std::move(numbers);
}

void OptionReader::ReadNamedNumbers(std::string_view key, std::vector<std::string>* value) {
  auto element = Find(key);
  if (!element) return;
  simdjson::dom::object object;
  if (element->get_object().get(object) != simdjson::SUCCESS)
    return WrongType(key, "an object of numbers, e.g. {\"resnet50\": 1.5}");
  std::vector<std::string> flags;
  for (simdjson::dom::key_value_pair field : object) {
    double number = 0;
    if (field.value.get_double().get(number) != simdjson::SUCCESS)
      return WrongType(key, "an object of numbers, e.g. {\"resnet50\": 1.5}");
    // Seventeen significant digits read back as the same double in the CLI's parser.
    char text[40];
    std::snprintf(text, sizeof(text), "%.17g", number);
    flags.push_back(std::string(field.key) + "=" + text);
  }
  *value = std::move(flags);
}

void OptionReader::ReadOutput(bool* json) {
  std::string output = "json";
  Read("output", &output);
  if (output != "json" && output != "text") Fail("option 'output' must be \"json\" or \"text\", got '" + output + "'");
  *json = output == "json";
}

std::optional<std::string> OptionReader::Problem() const {
  if (problem_ || !has_object_) return problem_;
  for (simdjson::dom::key_value_pair field : object_) {
    if (std::find(known_.begin(), known_.end(), field.key) != known_.end()) continue;
    std::string known;
    for (const std::string& k : known_) known += (known.empty() ? "" : ", ") + k;
    return "unknown option '" + std::string(field.key) + "' (this call knows: " + known + ")";
  }
  return std::nullopt;
}

}  // namespace kraken::capi
