// Parquet files written by parquet::Writer, read back by a decoder written here from the
// format specification (magic, footer length, compact-protocol footer and page headers,
// RLE definition levels, PLAIN values). ctest's kraken_parquet_hyparquet_test reads kraken's
// exports with an independent reader (the hyparquet npm package) as well.
#include "report/parquet/parquet_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <variant>

namespace kraken::parquet {
namespace {

// A decoded compact-protocol value: integer (also bool), binary, list or struct.
struct Thrift {
  int64_t integer = 0;
  std::string binary;
  std::vector<Thrift> list;
  std::map<int, Thrift> fields;
  const Thrift& operator[](int id) const {
    auto it = fields.find(id);
    if (it == fields.end()) throw std::runtime_error("no field " + std::to_string(id));
    return it->second;
  }
  bool has(int id) const { return fields.count(id) > 0; }
};

class ThriftDecoder {
 public:
  ThriftDecoder(std::string_view bytes) : bytes_(bytes) {}
  size_t position() const { return at_; }

  Thrift Struct() {
    Thrift value;
    int last = 0;
    for (;;) {
      uint8_t header = Byte();
      if (header == 0) return value;
      int type = header & 0x0f;
      int delta = header >> 4;
      int id = delta != 0 ? last + delta : static_cast<int>(ZigZag());
      last = id;
      value.fields[id] = Value(type);
    }
  }

 private:
  uint8_t Byte() {
    if (at_ >= bytes_.size()) throw std::runtime_error("thrift: truncated");
    return static_cast<uint8_t>(bytes_[at_++]);
  }
  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = Byte();
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
  }
  int64_t ZigZag() {
    uint64_t v = Varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  Thrift Value(int type) {
    Thrift value;
    switch (type) {
      case 1: value.integer = 1; break;  // bool true
      case 2: value.integer = 0; break;  // bool false
      case 5:
      case 6: value.integer = ZigZag(); break;
      case 8: {
        size_t n = Varint();
        value.binary = std::string(bytes_.substr(at_, n));
        at_ += n;
        break;
      }
      case 9: {
        uint8_t header = Byte();
        size_t n = header >> 4;
        if (n == 15) n = Varint();
        for (size_t i = 0; i < n; ++i) value.list.push_back(Value(header & 0x0f));
        break;
      }
      case 12: value = Struct(); break;
      default: throw std::runtime_error("thrift: unexpected type " + std::to_string(type));
    }
    return value;
  }
  std::string_view bytes_;
  size_t at_ = 0;
};

using Value = std::variant<std::monostate, int64_t, double, bool, std::string>;

uint64_t ReadLittleEndian(std::string_view bytes, size_t at, int n) {
  uint64_t value = 0;
  for (int i = 0; i < n; ++i) value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
  return value;
}

// Expands RLE runs of bit width 1 (the writer emits only RLE runs).
std::vector<uint8_t> DecodeLevels(std::string_view runs, size_t count) {
  std::vector<uint8_t> levels;
  for (size_t at = 0; at < runs.size();) {
    uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = static_cast<uint8_t>(runs[at++]);
      header |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    EXPECT_EQ(header & 1, 0u) << "a bit-packed run";
    levels.insert(levels.end(), header >> 1, static_cast<uint8_t>(runs[at++]));
  }
  EXPECT_EQ(levels.size(), count);
  return levels;
}

struct DecodedFile {
  Thrift footer;
  std::vector<std::vector<Value>> columns;  // every row group, concatenated
};

// Decodes one column chunk (one data page) into `out`.
void DecodeChunk(std::string_view file, const Thrift& meta, bool optional, std::vector<Value>& out) {
  size_t at = static_cast<size_t>(meta[9].integer);
  ThriftDecoder decoder(file.substr(at));
  Thrift header = decoder.Struct();
  EXPECT_EQ(header[1].integer, 0);  // DATA_PAGE
  EXPECT_EQ(header[2].integer, header[3].integer);  // uncompressed
  EXPECT_EQ(static_cast<int64_t>(decoder.position()) + header[3].integer, meta[7].integer);
  std::string_view page = file.substr(at + decoder.position(), static_cast<size_t>(header[3].integer));
  size_t count = static_cast<size_t>(header[5][1].integer);
  std::vector<uint8_t> defined(count, 1);
  size_t pos = 0;
  if (optional) {
    size_t length = ReadLittleEndian(page, 0, 4);
    defined = DecodeLevels(page.substr(4, length), count);
    pos = 4 + length;
  }
  int64_t type = meta[1].integer;
  size_t present = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!defined[i]) {
      out.emplace_back(std::monostate{});
      continue;
    }
    if (type == 2) {
      out.emplace_back(static_cast<int64_t>(ReadLittleEndian(page, pos, 8)));
      pos += 8;
    } else if (type == 5) {
      uint64_t bits = ReadLittleEndian(page, pos, 8);
      double d;
      std::memcpy(&d, &bits, 8);
      out.emplace_back(d);
      pos += 8;
    } else if (type == 0) {
      out.emplace_back(bool((static_cast<uint8_t>(page[pos + present / 8]) >> (present % 8)) & 1));
    } else {
      size_t n = ReadLittleEndian(page, pos, 4);
      out.emplace_back(std::string(page.substr(pos + 4, n)));
      pos += 4 + n;
    }
    ++present;
  }
  if (type == 0) pos += (present + 7) / 8;
  EXPECT_EQ(pos, page.size()) << "bytes left over in the page";
}

DecodedFile Decode(const std::string& file) {
  DecodedFile decoded;
  EXPECT_EQ(file.substr(0, 4), "PAR1");
  EXPECT_EQ(file.substr(file.size() - 4), "PAR1");
  size_t footer_length = ReadLittleEndian(file, file.size() - 8, 4);
  ThriftDecoder decoder(std::string_view(file).substr(file.size() - 8 - footer_length, footer_length));
  decoded.footer = decoder.Struct();
  EXPECT_EQ(decoder.position(), footer_length);
  const std::vector<Thrift>& schema = decoded.footer[2].list;
  decoded.columns.resize(schema.size() - 1);
  for (const Thrift& group : decoded.footer[4].list)
    for (size_t c = 0; c < group[1].list.size(); ++c)
      DecodeChunk(file, group[1].list[c][3], schema[c + 1][3].integer == 1, decoded.columns[c]);
  return decoded;
}

std::vector<ColumnSpec> TestColumns() {
  return {{"id", ColumnType::kInt64, false},
          {"name", ColumnType::kString, false},
          {"value", ColumnType::kDouble, true},
          {"flag", ColumnType::kBool, false},
          {"note", ColumnType::kString, true}};
}

// Writes `rows` rows of a known pattern: value null every third row, note every other.
std::string WritePattern(int rows, size_t row_group_bytes) {
  std::string file;
  Writer writer(TestColumns(), [&file](std::string_view b) { file.append(b); return Status::Ok(); },
                "kraken test", row_group_bytes);
  for (int i = 0; i < rows; ++i) {
    writer.Int64(int64_t{1} << 40 | i);
    writer.String("kernel_" + std::to_string(i));
    i % 3 == 0 ? writer.Null() : writer.Double(i * 0.5 - 1);
    writer.Bool(i % 5 == 1);
    i % 2 == 0 ? writer.String("é,\"q\"") : writer.Null();
    EXPECT_TRUE(writer.EndRow().ok());
  }
  EXPECT_TRUE(writer.Finish().ok());
  return file;
}

void ExpectPattern(const DecodedFile& decoded, int rows) {
  ASSERT_EQ(decoded.columns.size(), 5u);
  for (const auto& column : decoded.columns) ASSERT_EQ(column.size(), static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) {
    EXPECT_EQ(std::get<int64_t>(decoded.columns[0][i]), int64_t{1} << 40 | i);
    EXPECT_EQ(std::get<std::string>(decoded.columns[1][i]), "kernel_" + std::to_string(i));
    if (i % 3 == 0) EXPECT_TRUE(std::holds_alternative<std::monostate>(decoded.columns[2][i]));
    else EXPECT_EQ(std::get<double>(decoded.columns[2][i]), i * 0.5 - 1);
    EXPECT_EQ(std::get<bool>(decoded.columns[3][i]), i % 5 == 1) << i;
    if (i % 2 == 0) EXPECT_EQ(std::get<std::string>(decoded.columns[4][i]), "é,\"q\"");
    else EXPECT_TRUE(std::holds_alternative<std::monostate>(decoded.columns[4][i]));
  }
}

TEST(ParquetWriterTest, SchemaAndEveryValueReadBack) {
  std::string file = WritePattern(23, Writer::kDefaultRowGroupBytes);
  DecodedFile decoded = Decode(file);
  EXPECT_EQ(decoded.footer[1].integer, 1);   // version
  EXPECT_EQ(decoded.footer[3].integer, 23);  // num_rows
  EXPECT_EQ(decoded.footer[6].binary, "kraken test");
  const std::vector<Thrift>& schema = decoded.footer[2].list;
  ASSERT_EQ(schema.size(), 6u);
  EXPECT_EQ(schema[0][5].integer, 5);  // the root's children
  // type, repetition, name; strings carry UTF8 and the STRING logical type.
  EXPECT_EQ(schema[1][1].integer, 2);
  EXPECT_EQ(schema[1][3].integer, 0);
  EXPECT_EQ(schema[1][4].binary, "id");
  EXPECT_EQ(schema[2][1].integer, 6);
  EXPECT_EQ(schema[2][6].integer, 0);
  EXPECT_TRUE(schema[2][10].has(1));
  EXPECT_EQ(schema[3][1].integer, 5);
  EXPECT_EQ(schema[3][3].integer, 1);
  EXPECT_EQ(schema[4][1].integer, 0);
  ASSERT_EQ(decoded.footer[4].list.size(), 1u);  // one row group
  EXPECT_EQ(decoded.footer[4].list[0][3].integer, 23);
  EXPECT_EQ(decoded.footer[4].list[0][1].list[1][3][3].list[0].binary, "name");  // path_in_schema
  ExpectPattern(decoded, 23);
}

TEST(ParquetWriterTest, LongTablesAreSplitIntoRowGroups) {
  std::string file = WritePattern(1000, 2000);
  DecodedFile decoded = Decode(file);
  EXPECT_GT(decoded.footer[4].list.size(), 10u);
  int64_t rows = 0;
  for (const Thrift& group : decoded.footer[4].list) rows += group[3].integer;
  EXPECT_EQ(rows, 1000);
  EXPECT_EQ(decoded.footer[3].integer, 1000);
  ExpectPattern(decoded, 1000);
}

TEST(ParquetWriterTest, AnEmptyTableIsAValidFileWithItsSchema) {
  std::string file = WritePattern(0, Writer::kDefaultRowGroupBytes);
  DecodedFile decoded = Decode(file);
  EXPECT_EQ(decoded.footer[3].integer, 0);
  EXPECT_TRUE(decoded.footer[4].list.empty());
  EXPECT_EQ(decoded.footer[2].list.size(), 6u);
}

TEST(ParquetWriterTest, MisusedRowsAreRefusedNotWritten) {
  std::string file;
  Writer writer({{"a", ColumnType::kInt64, false}, {"b", ColumnType::kDouble, false}},
                [&file](std::string_view b) { file.append(b); return Status::Ok(); }, "t");
  writer.Int64(1);
  writer.Null();  // b is required
  Status status = writer.EndRow();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("column b is required"), std::string::npos) << status.message();
  Writer short_row({{"a", ColumnType::kInt64, false}, {"b", ColumnType::kDouble, false}},
                   [&file](std::string_view b) { file.append(b); return Status::Ok(); }, "t");
  short_row.String("x");
  EXPECT_NE(short_row.EndRow().message().find("column a holds int64, not string"), std::string::npos);
  EXPECT_TRUE(file.empty());
}

TEST(ParquetWriterTest, SinkErrorsStopTheWriter) {
  Writer writer({{"a", ColumnType::kInt64, false}},
                [](std::string_view) { return IoError("out.parquet: disk full"); }, "t");
  writer.Int64(1);
  ASSERT_TRUE(writer.EndRow().ok());
  Status status = writer.Finish();
  EXPECT_EQ(status.message(), "out.parquet: disk full");
}

TEST(ParquetWriterTest, LevelRunsCountRepeatedValues) {
  std::vector<uint8_t> levels(300, 1);
  levels[0] = 0;
  // one 0, then 299 ones: header 1<<1, value 0; header 299<<1 = 598 (varint 0xd6 0x04), value 1.
  EXPECT_EQ(EncodeLevelRuns(levels), std::string("\x02\x00\xd6\x04\x01", 5));
  EXPECT_EQ(EncodeLevelRuns({}), "");
}

}  // namespace
}  // namespace kraken::parquet
