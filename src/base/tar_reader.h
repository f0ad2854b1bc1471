// Reads the members of a tar archive one after the other, without unpacking it to disk.
// Kineto traces are often shared as a .tar.gz with one JSON file per rank.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/byte_stream.h"

namespace kraken {

// True when `head` (the first bytes of a decompressed input) is a ustar/GNU tar header.
bool LooksLikeTar(std::string_view head);

class TarReader {
 public:
  explicit TarReader(std::unique_ptr<ByteStream> archive);
  ~TarReader();

  struct Member {
    std::string name;
    uint64_t size_bytes = 0;
  };

  // Moves to the next regular file. Returns false at the end of the archive. The stream
  // of the previous member becomes invalid: its unread bytes are skipped.
  Result<bool> Next(Member* member);

  // The bytes of the current member. Valid until the next call to Next().
  std::unique_ptr<ByteStream> OpenMember();

 private:
  class MemberStream;
  Status Skip(uint64_t bytes);
  Result<bool> ReadBlock(char* block);

  std::unique_ptr<ByteStream> archive_;
  uint64_t remaining_in_member_ = 0;  // shared with MemberStream
  uint64_t padding_after_member_ = 0;
};

}  // namespace kraken
