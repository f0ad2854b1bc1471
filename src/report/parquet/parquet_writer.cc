#include "report/parquet/parquet_writer.h"

#include <bit>
#include <climits>

#include "report/parquet/thrift_compact.h"

namespace kraken::parquet {
namespace {

// Enum values of parquet.thrift.
constexpr int32_t kTypeBoolean = 0, kTypeInt64 = 2, kTypeDouble = 5, kTypeByteArray = 6;
constexpr int32_t kRequired = 0, kOptional = 1;
constexpr int32_t kConvertedUtf8 = 0;
constexpr int32_t kEncodingPlain = 0, kEncodingRle = 3;
constexpr int32_t kPageData = 0;
constexpr int32_t kCodecUncompressed = 0;
constexpr std::string_view kMagic = "PAR1";

void AppendLittleEndian(uint64_t value, int bytes, std::string& out) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void AppendVarint(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

int32_t PhysicalType(ColumnType type) {
  switch (type) {
    case ColumnType::kInt64: return kTypeInt64;
    case ColumnType::kDouble: return kTypeDouble;
    case ColumnType::kBool: return kTypeBoolean;
    case ColumnType::kString: return kTypeByteArray;
  }
  return kTypeByteArray;
}

const char* TypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kInt64: return "int64";
    case ColumnType::kDouble: return "double";
    case ColumnType::kBool: return "bool";
    case ColumnType::kString: return "string";
  }
  return "?";
}

void WriteSchemaElement(const ColumnSpec& column, CompactWriter& thrift) {
  thrift.BeginListStruct();
  thrift.I32Field(1, PhysicalType(column.type));
  thrift.I32Field(3, column.optional ? kOptional : kRequired);
  thrift.BinaryField(4, column.name);
  if (column.type == ColumnType::kString) {
    thrift.I32Field(6, kConvertedUtf8);
    thrift.BeginStructField(10);  // logicalType: the STRING member (an empty struct)
    thrift.BeginStructField(1);
    thrift.EndStruct();
    thrift.EndStruct();
  }
  thrift.EndStruct();
}

}  // namespace

std::string EncodeLevelRuns(const std::vector<uint8_t>& levels) {
  std::string out;
  for (size_t i = 0; i < levels.size();) {
    size_t end = i;
    while (end < levels.size() && levels[end] == levels[i]) ++end;
    // An RLE run: header (count << 1, low bit 0), then the value in one byte (bit width 1).
    AppendVarint(static_cast<uint64_t>(end - i) << 1, out);
    out.push_back(static_cast<char>(levels[i]));
    i = end;
  }
  return out;
}

Writer::Writer(std::vector<ColumnSpec> columns, ByteSink sink, std::string created_by, size_t row_group_bytes)
    : columns_(std::move(columns)),
      sink_(std::move(sink)),
      created_by_(std::move(created_by)),
      row_group_bytes_(row_group_bytes),
      buffers_(columns_.size()) {}

Writer::ColumnBuffer* Writer::NextColumn(ColumnType type) {
  if (next_column_ >= columns_.size()) {
    if (row_error_.empty()) row_error_ = "more values than the " + std::to_string(columns_.size()) + " columns";
    return nullptr;
  }
  const ColumnSpec& column = columns_[next_column_];
  ColumnBuffer& buffer = buffers_[next_column_++];
  if (column.type != type) {
    if (row_error_.empty())
      row_error_ = "column " + column.name + " holds " + TypeName(column.type) + ", not " + TypeName(type);
    return nullptr;
  }
  if (column.optional) buffer.defined.push_back(1);
  ++buffer.present;
  return &buffer;
}

void Writer::Int64(int64_t value) {
  if (ColumnBuffer* b = NextColumn(ColumnType::kInt64)) AppendLittleEndian(static_cast<uint64_t>(value), 8, b->values);
}

void Writer::Double(double value) {
  if (ColumnBuffer* b = NextColumn(ColumnType::kDouble))
    AppendLittleEndian(std::bit_cast<uint64_t>(value), 8, b->values);
}

void Writer::Bool(bool value) {
  ColumnBuffer* b = NextColumn(ColumnType::kBool);
  if (b == nullptr) return;
  // PLAIN booleans are bit-packed, first value in the lowest bit.
  int64_t bit = (b->present - 1) % 8;
  if (bit == 0) b->values.push_back(0);
  if (value) b->values.back() = static_cast<char>(b->values.back() | (1 << bit));
}

void Writer::String(std::string_view value) {
  ColumnBuffer* b = NextColumn(ColumnType::kString);
  if (b == nullptr) return;
  AppendLittleEndian(value.size(), 4, b->values);
  b->values.append(value);
}

void Writer::Null() {
  if (next_column_ >= columns_.size()) {
    if (row_error_.empty()) row_error_ = "more values than the " + std::to_string(columns_.size()) + " columns";
    return;
  }
  const ColumnSpec& column = columns_[next_column_];
  ColumnBuffer& buffer = buffers_[next_column_++];
  if (!column.optional) {
    if (row_error_.empty()) row_error_ = "column " + column.name + " is required: no null";
    return;
  }
  buffer.defined.push_back(0);
}

Status Writer::EndRow() {
  if (row_error_.empty() && next_column_ != columns_.size())
    row_error_ = std::to_string(next_column_) + " values for " + std::to_string(columns_.size()) + " columns";
  // A bad row would leave the columns out of step: the writer refuses everything after it.
  if (!row_error_.empty())
    return Status(StatusCode::kInternal, "parquet row " + std::to_string(total_rows_) + ": " + row_error_);
  next_column_ = 0;
  ++group_rows_;
  ++total_rows_;
  buffered_bytes_ = 0;
  for (const ColumnBuffer& b : buffers_) buffered_bytes_ += b.values.size() + b.defined.size();
  if (buffered_bytes_ >= row_group_bytes_) return FlushRowGroup();
  return Status::Ok();
}

Status Writer::Emit(std::string_view bytes) {
  offset_ += static_cast<int64_t>(bytes.size());
  return sink_(bytes);
}

Status Writer::WriteChunk(size_t column, ChunkInfo* info) {
  ColumnBuffer& buffer = buffers_[column];
  std::string page;
  if (columns_[column].optional) {
    std::string levels = EncodeLevelRuns(buffer.defined);
    AppendLittleEndian(levels.size(), 4, page);  // data page v1: levels carry their length
    page += levels;
  }
  page += buffer.values;
  if (page.size() > static_cast<size_t>(INT32_MAX))
    return InvalidInput("parquet column " + columns_[column].name + ": a page over 2 GiB");
  CompactWriter header;
  header.I32Field(1, kPageData);
  header.I32Field(2, static_cast<int32_t>(page.size()));
  header.I32Field(3, static_cast<int32_t>(page.size()));
  header.BeginStructField(5);  // data_page_header
  header.I32Field(1, static_cast<int32_t>(group_rows_));
  header.I32Field(2, kEncodingPlain);
  header.I32Field(3, kEncodingRle);
  header.I32Field(4, kEncodingRle);
  header.EndStruct();
  header.EndStruct();
  info->page_offset = offset_;
  info->size = static_cast<int64_t>(header.bytes().size() + page.size());
  KRAKEN_RETURN_IF_ERROR(Emit(header.bytes()));
  KRAKEN_RETURN_IF_ERROR(Emit(page));
  buffer = ColumnBuffer();
  return Status::Ok();
}

Status Writer::FlushRowGroup() {
  if (group_rows_ == 0) return Status::Ok();
  if (group_rows_ > INT32_MAX) return InvalidInput("parquet: a row group over 2^31 rows");
  if (offset_ == 0) KRAKEN_RETURN_IF_ERROR(Emit(kMagic));
  RowGroupInfo group;
  group.rows = group_rows_;
  group.chunks.resize(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    KRAKEN_RETURN_IF_ERROR(WriteChunk(c, &group.chunks[c]));
    group.bytes += group.chunks[c].size;
  }
  row_groups_.push_back(std::move(group));
  group_rows_ = 0;
  buffered_bytes_ = 0;
  return Status::Ok();
}

std::string Writer::EncodeFooter() const {
  CompactWriter thrift;
  thrift.I32Field(1, 1);  // version
  thrift.BeginListField(2, ThriftType::kStruct, columns_.size() + 1);
  thrift.BeginListStruct();  // the root: a group of every column
  thrift.BinaryField(4, "schema");
  thrift.I32Field(5, static_cast<int32_t>(columns_.size()));
  thrift.EndStruct();
  for (const ColumnSpec& column : columns_) WriteSchemaElement(column, thrift);
  thrift.I64Field(3, total_rows_);
  thrift.BeginListField(4, ThriftType::kStruct, row_groups_.size());
  for (const RowGroupInfo& group : row_groups_) {
    thrift.BeginListStruct();
    thrift.BeginListField(1, ThriftType::kStruct, columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) {
      const ChunkInfo& chunk = group.chunks[c];
      thrift.BeginListStruct();
      thrift.I64Field(2, chunk.page_offset);  // file_offset
      thrift.BeginStructField(3);             // meta_data
      thrift.I32Field(1, PhysicalType(columns_[c].type));
      thrift.BeginListField(2, ThriftType::kI32, 2);
      thrift.ListI32(kEncodingPlain);
      thrift.ListI32(kEncodingRle);
      thrift.BeginListField(3, ThriftType::kBinary, 1);
      thrift.ListBinary(columns_[c].name);
      thrift.I32Field(4, kCodecUncompressed);
      thrift.I64Field(5, group.rows);
      thrift.I64Field(6, chunk.size);
      thrift.I64Field(7, chunk.size);
      thrift.I64Field(9, chunk.page_offset);
      thrift.EndStruct();
      thrift.EndStruct();
    }
    thrift.I64Field(2, group.bytes);
    thrift.I64Field(3, group.rows);
    thrift.EndStruct();
  }
  thrift.BinaryField(6, created_by_);
  thrift.EndStruct();
  return thrift.Take();
}

Status Writer::Finish() {
  if (finished_) return Status(StatusCode::kInternal, "parquet: Finish called twice");
  if (next_column_ != 0) return Status(StatusCode::kInternal, "parquet: Finish in the middle of a row");
  KRAKEN_RETURN_IF_ERROR(FlushRowGroup());
  if (offset_ == 0) KRAKEN_RETURN_IF_ERROR(Emit(kMagic));  // an empty table: no row group
  std::string footer = EncodeFooter();
  std::string tail;
  AppendLittleEndian(footer.size(), 4, tail);
  tail += kMagic;
  KRAKEN_RETURN_IF_ERROR(Emit(footer));
  KRAKEN_RETURN_IF_ERROR(Emit(tail));
  finished_ = true;
  return Status::Ok();
}

}  // namespace kraken::parquet
