#include "base/csv_reader.h"

namespace kraken {

CsvReader::CsvReader(std::string_view text, char separator) : text_(text), separator_(separator) {
  // A UTF-8 byte-order mark is not part of the first field.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

bool CsvReader::Next(std::vector<std::string>* fields) {
  fields->clear();
  unterminated_quote_ = false;
  if (pos_ >= text_.size()) return false;
  record_line_ = line_;
  record_offset_ = pos_;
  std::string field;
  bool in_quotes = false;
  bool field_was_quoted = false;
  size_t i = pos_;
  for (; i < text_.size(); ++i) {
    char c = text_[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text_.size() && text_[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line_;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"' && !field_was_quoted && field.empty()) {
      in_quotes = true;
      field_was_quoted = true;
    } else if (c == separator_) {
      fields->push_back(std::move(field));
      field.clear();
      field_was_quoted = false;
    } else if (c == '\n') {
      break;
    } else if (c == '\r' && i + 1 < text_.size() && text_[i + 1] == '\n') {
      // CRLF: the '\n' ends the record on the next iteration.
    } else {
      field.push_back(c);
    }
  }
  unterminated_quote_ = in_quotes;
  size_t end = i;
  raw_ = text_.substr(record_offset_, end - record_offset_);
  if (!raw_.empty() && raw_.back() == '\r') raw_.remove_suffix(1);
  fields->push_back(std::move(field));
  if (i < text_.size()) {
    ++line_;
    ++i;
  }
  pos_ = i;
  return true;
}

}  // namespace kraken
