// Walks a large JSON document without building it in memory: the members of the
// top-level object are handed over one by one, and the elements of named arrays
// (Chrome-trace "traceEvents"; kraken's export's "kernels", "series", ...) one element
// at a time. Each piece is then small enough
// to parse with simdjson on demand, so memory stays bounded by the largest element and
// the read buffer, not by the file (the approach of Perfetto's JSON tokenizer).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/byte_stream.h"
#include "base/status.h"
#include "importers/importer.h"

namespace kraken {

// Bytes that stay readable after every string_view the walker hands out, so that
// simdjson (which reads ahead in 64-byte blocks) can parse it in place.
inline constexpr size_t kJsonReadPadding = 64;

class JsonStreamWalker {
 public:
  struct Callbacks {
    // Each element of a streamed array, with its byte offset in the input
    // (current_array() names the array).
    std::function<void(std::string_view element, uint64_t offset)> on_element;
    // Each other member of the top-level object, with its raw JSON value.
    std::function<Status(std::string_view key, std::string_view value)> on_member;
  };

  // `stream`: the decompressed input. `array_key`: the member whose array is streamed;
  // a document that is a bare array is streamed as a whole.
  JsonStreamWalker(ByteStream& stream, std::string_view array_key, ProgressFn progress = {});
  // Several members whose arrays are streamed, each element to the same on_element.
  JsonStreamWalker(ByteStream& stream, std::vector<std::string> array_keys, ProgressFn progress = {});

  Status Walk(const Callbacks& callbacks);

  // Elements seen in the streamed arrays (0 when none was found).
  uint64_t elements() const { return elements_; }
  bool found_array() const { return found_array_; }
  // While on_element runs: the key of the array being streamed ("" for a bare array).
  std::string_view current_array() const { return current_array_; }

  // For files written incrementally (kraken's CUPTI tracer appends one event at a time):
  // when the input ends inside the streamed array, the events read so far are kept and
  // Walk succeeds instead of reporting a truncated file. May be switched on from
  // on_member, i.e. by a member that comes before the array.
  void AcceptCutArray(bool accept) { accept_cut_array_ = accept; }
  // Whether the input ended inside the streamed array (only with AcceptCutArray), and the
  // bytes of the incomplete last element that were dropped (0 when the cut fell between
  // two elements).
  bool array_was_cut() const { return array_was_cut_; }
  uint64_t cut_partial_bytes() const { return cut_partial_bytes_; }

 private:
  enum class Scan { kDone, kNeedMore, kError };

  Status Fill();                   // reads more input, keeping bytes from pos_ on
  void GrowBuffer(size_t size);    // to `size` bytes, keeping the first len_
  Status NeedByte(bool* at_eof);   // makes sure pos_ < len_ unless the input ended
  Status SkipWhitespace(bool* at_eof);
  Status Expect(char c, const char* what);
  Status ReadKey(std::string* key);
  Status ReadValue(std::string_view* value, uint64_t* offset);
  // ReadValue for an element of the streamed array: at the end of the input it sets *cut
  // (and drops the partial element) instead of failing, when cut arrays are accepted.
  Status ReadElement(std::string_view* value, uint64_t* offset, bool* cut);
  bool CutHere();  // records a cut at pos_ when accepted; false otherwise
  Status WalkArray(const Callbacks& callbacks);
  Scan FindValueEnd(size_t from, size_t* end) const;
  Status ErrorAt(const std::string& what) const;

  ByteStream& stream_;
  std::vector<std::string> array_keys_;
  std::string current_array_;
  ProgressFn progress_;
  std::unique_ptr<char[]> buffer_;  // uninitialized beyond len_ + the padding Fill zeroes
  size_t buffer_size_ = 0;
  size_t pos_ = 0;
  size_t len_ = 0;
  uint64_t buffer_offset_ = 0;  // input offset of buffer_[0]
  bool eof_ = false;
  uint64_t elements_ = 0;
  bool found_array_ = false;
  bool accept_cut_array_ = false;
  bool array_was_cut_ = false;
  uint64_t cut_partial_bytes_ = 0;
  uint64_t next_progress_ = 0;
};

}  // namespace kraken
