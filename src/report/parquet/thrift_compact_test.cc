// Byte-exact checks of the compact protocol encoder against the encodings the Thrift
// compact protocol specification gives: short and long field headers, zigzag varints,
// bools in the header, short and long list headers, nested structs.
#include "report/parquet/thrift_compact.h"

#include <gtest/gtest.h>

namespace kraken::parquet {
namespace {

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST(ThriftCompactTest, ShortFieldHeadersAndZigZagVarints) {
  CompactWriter w;
  w.I32Field(1, 1);      // delta 1, type i32 (5); zigzag(1) = 2
  w.I32Field(2, -1);     // zigzag(-1) = 1
  w.I64Field(4, 300);    // delta 2, type i64 (6); zigzag(300) = 600 = 0xd8 0x04
  w.BoolField(5, true);  // the value is the type nibble: 1 true, 2 false
  w.BoolField(6, false);
  w.EndStruct();
  EXPECT_EQ(w.bytes(), Bytes({0x15, 0x02, 0x15, 0x01, 0x26, 0xd8, 0x04, 0x11, 0x12, 0x00}));
}

TEST(ThriftCompactTest, LongFieldHeaderWhenTheIdJumpsBy16OrMore) {
  CompactWriter w;
  w.I32Field(1, 0);
  w.BinaryField(20, "ab");  // delta 19: type byte, then zigzag(20) = 40
  w.EndStruct();
  EXPECT_EQ(w.bytes(), Bytes({0x15, 0x00, 0x08, 0x28, 0x02, 'a', 'b', 0x00}));
}

TEST(ThriftCompactTest, ListsAndNestedStructsKeepTheirOwnFieldIds) {
  CompactWriter w;
  w.BeginListField(2, ThriftType::kI32, 2);  // size 2 in the high nibble
  w.ListI32(0);
  w.ListI32(3);
  w.BeginStructField(3);
  w.I32Field(1, 7);  // ids restart inside the nested struct
  w.EndStruct();
  w.I32Field(4, 1);  // and resume after it: delta 1 from field 3
  w.EndStruct();
  EXPECT_EQ(w.bytes(), Bytes({0x29, 0x25, 0x00, 0x06, 0x1c, 0x15, 0x0e, 0x00, 0x15, 0x02, 0x00}));
}

TEST(ThriftCompactTest, ListOfFifteenOrMoreHasItsSizeAsAVarint) {
  CompactWriter w;
  w.BeginListField(1, ThriftType::kBinary, 20);
  for (int i = 0; i < 20; ++i) w.ListBinary("");
  w.EndStruct();
  std::string expected = Bytes({0x19, 0xf8, 20});
  expected += std::string(20, '\0');  // twenty empty strings: length 0 each
  expected.push_back(0);
  EXPECT_EQ(w.bytes(), expected);
}

}  // namespace
}  // namespace kraken::parquet
