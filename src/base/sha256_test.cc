#include "base/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace kraken {
namespace {

// FIPS 180-4 example vectors.
TEST(Sha256Test, KnownDigests) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Pieces of every size across block edges give the one-shot digest.
TEST(Sha256Test, StreamInPiecesEqualsTheWholeDigest) {
  std::string data;
  for (int i = 0; i < 5000; ++i) data += static_cast<char>('a' + i % 23);
  for (size_t piece : {1u, 7u, 63u, 64u, 65u, 1000u}) {
    Sha256Stream stream;
    for (size_t at = 0; at < data.size(); at += piece) stream.Update(std::string_view(data).substr(at, piece));
    EXPECT_EQ(stream.HexDigest(), Sha256Hex(data)) << piece;
  }
  Sha256Stream million;
  for (int i = 0; i < 1000; ++i) million.Update(std::string(1000, 'a'));
  EXPECT_EQ(million.HexDigest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace kraken
