// The few pieces of the Thrift compact protocol that a Parquet file's footer and page
// headers need (Apache Thrift, doc/specs/thrift-compact-protocol.md): structs of i32, i64,
// bool, binary, list and nested struct fields. Encoding only: kraken writes Parquet, it
// never reads it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::parquet {

// Compact-protocol type ids, as they appear in field and list headers.
enum class ThriftType : uint8_t {
  kBoolTrue = 1,
  kBoolFalse = 2,
  kI32 = 5,
  kI64 = 6,
  kBinary = 8,
  kList = 9,
  kStruct = 12,
};

// Appends one struct at a time to a byte string. Fields must be written in increasing id
// order within a struct (the compact protocol stores the difference to the previous id).
class CompactWriter {
 public:
  CompactWriter() { last_field_ids_.push_back(0); }

  void I32Field(int16_t id, int32_t value);
  void I64Field(int16_t id, int64_t value);
  void BoolField(int16_t id, bool value);
  void BinaryField(int16_t id, std::string_view value);
  // A struct-valued field: its fields follow, then EndStruct().
  void BeginStructField(int16_t id);
  // A list field of `size` elements of `element_type`; the elements follow with the
  // List* calls (a struct element: BeginListStruct() ... EndStruct()).
  void BeginListField(int16_t id, ThriftType element_type, size_t size);
  void ListI32(int32_t value) { ZigZagVarint(value); }
  void ListBinary(std::string_view value);
  void BeginListStruct() { last_field_ids_.push_back(0); }
  // Ends the innermost struct (a field, a list element or the outermost one).
  void EndStruct();

  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void FieldHeader(int16_t id, ThriftType type);
  void Varint(uint64_t value);
  void ZigZagVarint(int64_t value);

  std::string out_;
  std::vector<int16_t> last_field_ids_;  // one per open struct
};

}  // namespace kraken::parquet
