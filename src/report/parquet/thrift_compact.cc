#include "report/parquet/thrift_compact.h"

namespace kraken::parquet {

void CompactWriter::Varint(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void CompactWriter::ZigZagVarint(int64_t value) {
  // Shift as unsigned: a left shift of a negative signed value is not portable.
  uint64_t zigzag = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  Varint(zigzag);
}

void CompactWriter::FieldHeader(int16_t id, ThriftType type) {
  int16_t& last = last_field_ids_.back();
  int delta = id - last;
  if (delta > 0 && delta <= 15) {
    out_.push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
  } else {
    // Long form: the type alone, then the id itself as a zigzag varint.
    out_.push_back(static_cast<char>(type));
    ZigZagVarint(id);
  }
  last = id;
}

void CompactWriter::I32Field(int16_t id, int32_t value) {
  FieldHeader(id, ThriftType::kI32);
  ZigZagVarint(value);
}

void CompactWriter::I64Field(int16_t id, int64_t value) {
  FieldHeader(id, ThriftType::kI64);
  ZigZagVarint(value);
}

void CompactWriter::BoolField(int16_t id, bool value) {
  // A bool field carries its value in the header's type nibble.
  FieldHeader(id, value ? ThriftType::kBoolTrue : ThriftType::kBoolFalse);
}

void CompactWriter::BinaryField(int16_t id, std::string_view value) {
  FieldHeader(id, ThriftType::kBinary);
  ListBinary(value);
}

void CompactWriter::ListBinary(std::string_view value) {
  Varint(value.size());
  out_.append(value);
}

void CompactWriter::BeginStructField(int16_t id) {
  FieldHeader(id, ThriftType::kStruct);
  last_field_ids_.push_back(0);
}

void CompactWriter::BeginListField(int16_t id, ThriftType element_type, size_t size) {
  FieldHeader(id, ThriftType::kList);
  int type = static_cast<int>(element_type);
  if (size < 15) {
    out_.push_back(static_cast<char>((size << 4) | type));
  } else {
    out_.push_back(static_cast<char>(0xf0 | type));
    Varint(size);
  }
}

void CompactWriter::EndStruct() {
  out_.push_back(0);  // stop field
  if (last_field_ids_.size() > 1) last_field_ids_.pop_back();
  else last_field_ids_.back() = 0;  // the outermost struct ended: a next one starts afresh
}

}  // namespace kraken::parquet
