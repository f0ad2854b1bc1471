// Reads a ByteStream line by line in bounded memory, for the line-oriented text formats
// of this folder (a file of many concatenated scrapes can be large).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/byte_stream.h"
#include "base/status.h"
#include "importers/importer.h"

namespace kraken::prometheus {

class LineReader {
 public:
  // Lines longer than this are reported as overlong (empty text) and skipped: no real
  // exposition line comes near it, and binary junk must not grow the buffer forever.
  static constexpr size_t kMaxLineBytes = 1 << 20;

  explicit LineReader(ByteStream& stream, ProgressFn progress = {});

  // The next line without its '\n' (a '\r' before it is kept). The view is valid until
  // the next call. Returns false at the end of the input.
  Result<bool> Next(std::string_view* line);

  // 1-based number of the line Next() returned last.
  size_t line_number() const { return line_number_; }
  // Whether that line ended with '\n' (the last line of a file may not).
  bool terminated() const { return terminated_; }
  // Whether that line was longer than kMaxLineBytes (its text is then empty).
  bool overlong() const { return overlong_; }

  // For row formats: OK unless the last row was rejected and the input ended inside it
  // (no final '\n'), which means a cut file rather than one bad row, so the whole import
  // fails with the line named.
  Status CheckLastRowComplete(bool last_row_rejected) const;

 private:
  Status Fill();

  ByteStream& stream_;
  ProgressFn progress_;
  std::string buffer_;
  size_t pos_ = 0;
  bool eof_ = false;
  bool discarding_ = false;  // skipping the rest of an overlong line
  size_t line_number_ = 0;
  bool terminated_ = false;
  bool overlong_ = false;
};

}  // namespace kraken::prometheus
