// RFC 4180 CSV records: quoted fields may hold separators, doubled quotes and newlines.
// Profiler CSVs need this: ncu kernel names contain commas, quotes and angle brackets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kraken {

class CsvReader {
 public:
  explicit CsvReader(std::string_view text, char separator = ',');

  // Reads the next record into `fields`. Returns false at the end of the text.
  // Blank lines are returned as a record with one empty field.
  bool Next(std::vector<std::string>* fields);

  // 1-based line on which the last record started.
  size_t line() const { return record_line_; }
  // Byte offset at which the last record started.
  size_t offset() const { return record_offset_; }
  // True when the last record ended inside an unterminated quoted field.
  bool unterminated_quote() const { return unterminated_quote_; }
  // The raw text of the last record (without its line ending).
  std::string_view raw() const { return raw_; }

 private:
  std::string_view text_;
  char separator_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t record_line_ = 0;
  size_t record_offset_ = 0;
  bool unterminated_quote_ = false;
  std::string_view raw_;
};

}  // namespace kraken
