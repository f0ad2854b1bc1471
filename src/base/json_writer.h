// A streaming JSON writer for kraken's machine-readable output (--json). It checks
// nesting in debug builds, writes NaN/inf as null (JSON has no such numbers), and
// pretty-prints with two-space indentation so diffs of outputs stay readable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kraken {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Number(double value);
  // The shortest decimal that reads back as the same double (exports, where every bit
  // counts); NaN and infinities are null like Number's.
  JsonWriter& ExactNumber(double value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  // Shorthands for `Key(k).X(v)`.
  JsonWriter& Field(std::string_view key, std::string_view value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const char* value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, double value) { return Key(key).Number(value); }
  JsonWriter& Field(std::string_view key, int64_t value) { return Key(key).Int(value); }
  JsonWriter& Field(std::string_view key, int value) { return Key(key).Int(value); }
  JsonWriter& Field(std::string_view key, uint64_t value) { return Key(key).Uint(value); }
  JsonWriter& Field(std::string_view key, bool value) { return Key(key).Bool(value); }

  // A writer for one value that will sit `depth` containers deep in another document and
  // be spliced in there with RawValue: the same bytes as writing it in place, so parts of
  // a document can be rendered on several threads.
  static JsonWriter Nested(size_t depth, bool pretty = true);
  // Writes `json`, a complete value from a Nested writer, as the next value.
  JsonWriter& RawValue(std::string_view json);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void BeforeValue();
  void Newline();

  std::string out_;
  bool pretty_;
  // One entry per open container: whether it already holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

// Appends `s` to `out` as a quoted JSON string with the required escapes.
void AppendJsonString(std::string& out, std::string_view s);

}  // namespace kraken
