// SHA-256 (FIPS 180-4), for naming the exact input a derived file came from.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kraken {

// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

// The same digest over data that arrives in pieces (an upload streamed to disk).
class Sha256Stream {
 public:
  void Update(std::string_view data);
  std::string HexDigest();  // ends the stream

 private:
  std::array<uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  unsigned char block_[64] = {};
  size_t block_size_ = 0;
  uint64_t total_ = 0;
};

}  // namespace kraken
