#include "importers/common/line_reader.h"

namespace kraken::prometheus {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;

}  // namespace

LineReader::LineReader(ByteStream& stream, ProgressFn progress) : stream_(stream), progress_(std::move(progress)) {}

Status LineReader::Fill() {
  if (pos_ > 0) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  size_t old_size = buffer_.size();
  buffer_.resize(old_size + kChunkBytes);
  Result<size_t> read = stream_.Read(buffer_.data() + old_size, kChunkBytes);
  if (!read.ok()) {
    buffer_.resize(old_size);
    return read.status();
  }
  buffer_.resize(old_size + *read);
  if (*read == 0) eof_ = true;
  if (progress_) progress_(stream_.source_offset());
  return Status::Ok();
}

Result<bool> LineReader::Next(std::string_view* line) {
  overlong_ = false;
  while (true) {
    size_t newline = buffer_.find('\n', pos_);
    if (discarding_) {
      if (newline != std::string::npos) {
        pos_ = newline + 1;
        discarding_ = false;
        continue;
      }
      buffer_.clear();
      pos_ = 0;
      if (eof_) return false;
      KRAKEN_RETURN_IF_ERROR(Fill());
      continue;
    }
    size_t line_end = newline == std::string::npos ? buffer_.size() : newline;
    if (line_end - pos_ > kMaxLineBytes) {
      ++line_number_;
      overlong_ = true;
      terminated_ = false;
      *line = std::string_view();
      discarding_ = true;
      return true;
    }
    if (newline != std::string::npos) {
      *line = std::string_view(buffer_).substr(pos_, newline - pos_);
      pos_ = newline + 1;
      ++line_number_;
      terminated_ = true;
      return true;
    }
    if (eof_) {
      if (pos_ >= buffer_.size()) return false;
      *line = std::string_view(buffer_).substr(pos_);
      pos_ = buffer_.size();
      ++line_number_;
      terminated_ = false;
      return true;
    }
    KRAKEN_RETURN_IF_ERROR(Fill());
  }
}

Status LineReader::CheckLastRowComplete(bool last_row_rejected) const {
  if (!last_row_rejected || terminated_) return Status::Ok();
  return InvalidInput("line " + std::to_string(line_number_) + ": file ends inside a row (truncated?)");
}

}  // namespace kraken::prometheus
