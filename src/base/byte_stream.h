// Byte streams: the one way importers read input, so that plain files, gzip files,
// members of a tar archive and in-memory test data all look the same to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken {

class ByteStream {
 public:
  virtual ~ByteStream() = default;

  // Reads up to `size` bytes into `out`. Returns how many were read; 0 means the end.
  virtual Result<size_t> Read(char* out, size_t size) = 0;

  // How far into the underlying file the stream has read (compressed bytes for gzip);
  // used for progress reporting only.
  virtual uint64_t source_offset() const = 0;

  // The bytes left to read when the stream knows without reading (a memory buffer, a
  // regular file as it is now); nullopt otherwise (gzip, a pipe). A hint for sizing
  // buffers: a file still being written may give more.
  virtual std::optional<uint64_t> size_left() const { return std::nullopt; }
};

// Reads a whole file (or "-" for standard input) without decompressing it.
Result<std::unique_ptr<ByteStream>> OpenFileStream(const std::string& path);

// Serves an in-memory buffer; used by tests and by the tar reader's small members.
std::unique_ptr<ByteStream> MakeMemoryStream(std::string data);

// Decompresses gzip data (all members of a multi-member file) from `compressed`.
std::unique_ptr<ByteStream> MakeGzipStream(std::unique_ptr<ByteStream> compressed);

// Serves `prefix` first and then the rest of `rest`: lets a sniffer look at the head
// of a stream without losing those bytes.
std::unique_ptr<ByteStream> MakePrefixedStream(std::string prefix, std::unique_ptr<ByteStream> rest);

// Reads up to `max_bytes` from the stream into a string (the head of the input).
Result<std::string> ReadUpTo(ByteStream& stream, size_t max_bytes);

// Reads everything that is left. For small formats (CSV, text) only: the trace importer
// streams instead so that memory stays bounded.
Result<std::string> ReadAll(ByteStream& stream);

inline bool LooksGzipped(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

}  // namespace kraken
