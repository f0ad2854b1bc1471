#include "importers/common/json_stream_walker.h"

#include "importers/common/json_container_end.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

namespace kraken {
namespace {

// The read size large traces want. An input the stream knows to be smaller gets a buffer of
// its size (one byte more, so that the first fill also reads the end): a file of a few
// kilobytes (an upload, a fuzzer's input, a test's cut trace) then costs its size, not
// 8 MiB at every import (zero-filled, and under ASan mapped and poisoned: the fuzzers ran
// 2.4 to 25 times slower). Starting every input small and growing instead cost 4 MB more
// peak RSS on an 87 MB trace (glibc's malloc then serves the large buffers differently).
constexpr size_t kReadBuffer = 8 << 20;

constexpr uint64_t kProgressEvery = 16 << 20;

size_t FirstBufferSize(const ByteStream& stream) {
  std::optional<uint64_t> left = stream.size_left();
  return left && *left < kReadBuffer ? static_cast<size_t>(*left) + 1 : kReadBuffer;
}

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Returns one past the closing quote of the string whose content starts at `p`, or
// nullptr when the buffer ends first.
const char* SkipStringBody(const char* p, const char* end) {
  while (true) {
    const char* q = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
    if (q == nullptr) return nullptr;
    // The quote is escaped when preceded by an odd number of backslashes.
    const char* b = q;
    while (b > p && b[-1] == '\\') --b;
    if (((q - b) & 1) == 0) return q + 1;
    p = q + 1;
  }
}

}  // namespace

JsonStreamWalker::JsonStreamWalker(ByteStream& stream, std::string_view array_key, ProgressFn progress)
    : JsonStreamWalker(stream, std::vector<std::string>{std::string(array_key)}, std::move(progress)) {}

JsonStreamWalker::JsonStreamWalker(ByteStream& stream, std::vector<std::string> array_keys, ProgressFn progress)
    : stream_(stream), array_keys_(std::move(array_keys)), progress_(std::move(progress)) {}

Status JsonStreamWalker::ErrorAt(const std::string& what) const {
  return InvalidInput("byte " + std::to_string(buffer_offset_ + pos_) + ": " + what);
}

void JsonStreamWalker::GrowBuffer(size_t size) {
  auto grown = std::make_unique_for_overwrite<char[]>(size);
  if (len_ > 0) std::memcpy(grown.get(), buffer_.get(), len_);
  buffer_ = std::move(grown);
  buffer_size_ = size;
}

Status JsonStreamWalker::Fill() {
  if (eof_) return Status::Ok();
  const bool first_fill = buffer_size_ == 0;
  if (first_fill) GrowBuffer(FirstBufferSize(stream_) + kJsonReadPadding);
  if (pos_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + pos_, len_ - pos_);
    buffer_offset_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  size_t capacity = buffer_size_ - kJsonReadPadding;
  if (!first_fill && capacity < kReadBuffer) {  // the input is longer than the stream said
    GrowBuffer(kReadBuffer + kJsonReadPadding);
    capacity = kReadBuffer;
  }
  if (len_ == capacity) {  // one element is larger than the buffer: grow it
    GrowBuffer(2 * capacity + kJsonReadPadding);
    capacity = buffer_size_ - kJsonReadPadding;
  }
  while (len_ < capacity) {
    auto n = stream_.Read(buffer_.get() + len_, capacity - len_);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      eof_ = true;
      break;
    }
    len_ += *n;
  }
  std::memset(buffer_.get() + len_, 0, kJsonReadPadding);
  if (progress_ && stream_.source_offset() >= next_progress_) {
    progress_(stream_.source_offset());
    next_progress_ = stream_.source_offset() + kProgressEvery;
  }
  return Status::Ok();
}

Status JsonStreamWalker::NeedByte(bool* at_eof) {
  *at_eof = false;
  if (pos_ < len_) return Status::Ok();
  KRAKEN_RETURN_IF_ERROR(Fill());
  *at_eof = pos_ >= len_;
  return Status::Ok();
}

Status JsonStreamWalker::SkipWhitespace(bool* at_eof) {
  while (true) {
    KRAKEN_RETURN_IF_ERROR(NeedByte(at_eof));
    if (*at_eof) return Status::Ok();
    while (pos_ < len_ && IsSpace(buffer_[pos_])) ++pos_;
    if (pos_ < len_) return Status::Ok();
  }
}

Status JsonStreamWalker::Expect(char c, const char* what) {
  bool eof = false;
  KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
  if (eof) return ErrorAt(std::string("unexpected end of input, expected ") + what + " (truncated file?)");
  if (buffer_[pos_] != c) return ErrorAt(std::string("expected ") + what);
  ++pos_;
  return Status::Ok();
}

JsonStreamWalker::Scan JsonStreamWalker::FindValueEnd(size_t from, size_t* end) const {
  const char* begin = buffer_.get();
  const char* p = begin + from;
  const char* limit = begin + len_;
  if (p >= limit) return Scan::kNeedMore;
  char first = *p;
  if (first == '"') {
    const char* q = SkipStringBody(p + 1, limit);
    if (q == nullptr) return Scan::kNeedMore;
    *end = static_cast<size_t>(q - begin);
    return Scan::kDone;
  }
  if (first == '{' || first == '[') {
    size_t length = 0;
    if (!FindContainerEnd(p, limit, &length)) return Scan::kNeedMore;
    *end = from + length;
    return Scan::kDone;
  }
  // A scalar: number, true, false, null.
  while (p < limit && *p != ',' && *p != '}' && *p != ']' && !IsSpace(*p)) ++p;
  if (p == limit && !eof_) return Scan::kNeedMore;
  if (p == begin + from) return Scan::kError;
  *end = static_cast<size_t>(p - begin);
  return Scan::kDone;
}

Status JsonStreamWalker::ReadValue(std::string_view* value, uint64_t* offset) {
  bool eof = false;
  KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
  if (eof) return ErrorAt("unexpected end of input, expected a value (truncated file?)");
  while (true) {
    size_t end = 0;
    Scan scan = FindValueEnd(pos_, &end);
    if (scan == Scan::kDone) {
      *value = std::string_view(buffer_.get() + pos_, end - pos_);
      *offset = buffer_offset_ + pos_;
      pos_ = end;
      return Status::Ok();
    }
    if (scan == Scan::kError) return ErrorAt("expected a JSON value");
    if (eof_) return ErrorAt("unexpected end of input inside a value (truncated file?)");
    KRAKEN_RETURN_IF_ERROR(Fill());
  }
}

Status JsonStreamWalker::ReadKey(std::string* key) {
  std::string_view raw;
  uint64_t offset = 0;
  bool eof = false;
  KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
  if (eof) return ErrorAt("unexpected end of input inside the top-level object (truncated file?)");
  if (buffer_[pos_] != '"') return ErrorAt("expected a member name in the top-level object");
  KRAKEN_RETURN_IF_ERROR(ReadValue(&raw, &offset));
  // Member names of trace files carry no escapes; keep them verbatim.
  *key = std::string(raw.substr(1, raw.size() - 2));
  return Status::Ok();
}

bool JsonStreamWalker::CutHere() {
  if (!accept_cut_array_) return false;
  array_was_cut_ = true;
  cut_partial_bytes_ = len_ - pos_;
  pos_ = len_;
  return true;
}

Status JsonStreamWalker::ReadElement(std::string_view* value, uint64_t* offset, bool* cut) {
  *cut = false;
  while (true) {
    size_t end = 0;
    Scan scan = FindValueEnd(pos_, &end);
    if (scan == Scan::kDone) {
      *value = std::string_view(buffer_.get() + pos_, end - pos_);
      *offset = buffer_offset_ + pos_;
      pos_ = end;
      return Status::Ok();
    }
    if (scan == Scan::kError) return ErrorAt("expected a JSON value");
    if (eof_) {
      if ((*cut = CutHere())) return Status::Ok();
      return ErrorAt("unexpected end of input inside a value (truncated file?)");
    }
    KRAKEN_RETURN_IF_ERROR(Fill());
  }
}

Status JsonStreamWalker::WalkArray(const Callbacks& callbacks) {
  found_array_ = true;
  KRAKEN_RETURN_IF_ERROR(Expect('[', "'['"));
  bool eof = false;
  KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
  if (eof) {
    if (CutHere()) return Status::Ok();
    return ErrorAt("unexpected end of input inside the event array (truncated file?)");
  }
  if (buffer_[pos_] == ']') {
    ++pos_;
    return Status::Ok();
  }
  while (true) {
    std::string_view element;
    uint64_t offset = 0;
    bool cut = false;
    KRAKEN_RETURN_IF_ERROR(ReadElement(&element, &offset, &cut));
    if (cut) return Status::Ok();
    ++elements_;
    callbacks.on_element(element, offset);
    KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
    if (eof) {
      if (CutHere()) return Status::Ok();
      return ErrorAt("unexpected end of input inside the event array (truncated file?)");
    }
    char c = buffer_[pos_++];
    if (c == ']') return Status::Ok();
    if (c != ',') {
      --pos_;
      return ErrorAt("expected ',' or ']' after an event");
    }
    KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
    if (eof) {
      if (CutHere()) return Status::Ok();
      return ErrorAt("unexpected end of input, expected a value (truncated file?)");
    }
  }
}

Status JsonStreamWalker::Walk(const Callbacks& callbacks) {
  KRAKEN_RETURN_IF_ERROR(Fill());
  bool eof = false;
  KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
  if (eof) return InvalidInput("file is empty");
  if (buffer_[pos_] == '[') {
    KRAKEN_RETURN_IF_ERROR(WalkArray(callbacks));
    if (array_was_cut_) return Status::Ok();
  } else if (buffer_[pos_] == '{') {
    ++pos_;
    KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
    if (eof) return ErrorAt("unexpected end of input inside the top-level object (truncated file?)");
    if (buffer_[pos_] == '}') {
      ++pos_;
    } else {
      while (true) {
        std::string key;
        KRAKEN_RETURN_IF_ERROR(ReadKey(&key));
        KRAKEN_RETURN_IF_ERROR(Expect(':', "':' after a member name"));
        KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
        if (eof) return ErrorAt("unexpected end of input, expected a value (truncated file?)");
        bool streamed = std::find(array_keys_.begin(), array_keys_.end(), key) != array_keys_.end();
        if (streamed && buffer_[pos_] == '[') {
          current_array_ = key;
          KRAKEN_RETURN_IF_ERROR(WalkArray(callbacks));
          current_array_.clear();
          if (array_was_cut_) return Status::Ok();  // the rest of the document was never written
        } else {
          std::string_view value;
          uint64_t offset = 0;
          KRAKEN_RETURN_IF_ERROR(ReadValue(&value, &offset));
          if (callbacks.on_member) {
            Status status = callbacks.on_member(key, value);
            if (!status.ok()) return ErrorAt(status.message());
          }
        }
        KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
        if (eof) return ErrorAt("unexpected end of input inside the top-level object (truncated file?)");
        char c = buffer_[pos_++];
        if (c == '}') break;
        if (c != ',') {
          --pos_;
          return ErrorAt("expected ',' or '}' in the top-level object");
        }
      }
    }
  } else {
    return ErrorAt("not a JSON object or array");
  }
  KRAKEN_RETURN_IF_ERROR(SkipWhitespace(&eof));
  if (!eof) return ErrorAt("unexpected data after the end of the JSON document");
  return Status::Ok();
}

}  // namespace kraken
