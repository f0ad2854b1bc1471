// The options of a C API call: one JSON object whose keys mirror the CLI flags. Reading is
// strict so that a typo never passes silently: a key of the wrong JSON type, or one that no
// Read asked for (Problem() names it and the keys the call knows), is the caller's error.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::capi {

class OptionReader {
 public:
  // `json` may be NULL or empty (no options).
  explicit OptionReader(const char* json);

  // Each leaves `*value` as it is when the key is absent or null.
  void Read(std::string_view key, std::string* value);
  void Read(std::string_view key, double* value);
  void Read(std::string_view key, int* value);      // whole numbers
  void Read(std::string_view key, int64_t* value);
  void Read(std::string_view key, size_t* value);   // whole numbers >= 0
  void Read(std::string_view key, bool* value);
  void Read(std::string_view key, std::vector<std::string>* value);  // a string or an array of strings
  void Read(std::string_view key, std::vector<int64_t>* value);      // a number or an array of whole numbers
  // {"NAME": number, ...} -> "NAME=number" entries (the CLI's --qos/--rate form).
  void ReadNamedNumbers(std::string_view key, std::vector<std::string>* value);
  // "json" (default) or "text" from the "output" key: true for JSON.
  void ReadOutput(bool* json);

  // The first problem met: not a JSON object, a value of the wrong type, or (checked
  // here, once every Read is done) a key that was not asked for.
  std::optional<std::string> Problem() const;

 private:
  // The key's value, or nullopt when absent or null; marks the key as known.
  std::optional<simdjson::dom::element> Find(std::string_view key);
  void Fail(std::string message);
  void WrongType(std::string_view key, const char* expected);

  simdjson::dom::parser parser_;
  simdjson::dom::object object_;
  bool has_object_ = false;
  std::vector<std::string> known_;  // keys asked for, in order
  std::optional<std::string> problem_;
};

}  // namespace kraken::capi
