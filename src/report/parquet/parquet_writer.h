// A small Parquet writer for flat tables (Apache Parquet format, parquet.thrift): required
// or optional columns of INT64, DOUBLE, BOOLEAN and BYTE_ARRAY (UTF-8 strings), PLAIN
// encoding, uncompressed, one data page (v1) per column chunk. Rows are buffered column by
// column and written as a row group whenever the buffers pass `row_group_bytes`, so memory
// stays bounded however long the table. Any Parquet reader (pyarrow, DuckDB, hyparquet)
// reads the result; docs/export.md describes kraken's tables.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::parquet {

enum class ColumnType { kInt64, kDouble, kBool, kString };

struct ColumnSpec {
  std::string name;
  ColumnType type = ColumnType::kInt64;
  bool optional = false;  // may hold nulls
};

// Receives the file's bytes in order; an error stops the writer.
using ByteSink = std::function<Status(std::string_view bytes)>;

class Writer {
 public:
  static constexpr size_t kDefaultRowGroupBytes = size_t{64} << 20;

  Writer(std::vector<ColumnSpec> columns, ByteSink sink, std::string created_by,
         size_t row_group_bytes = kDefaultRowGroupBytes);

  // One value per column, in column order, then EndRow(). The value's type must be the
  // column's; Null only in an optional column (mistakes are reported by EndRow).
  void Int64(int64_t value);
  void Double(double value);
  void Bool(bool value);
  void String(std::string_view value);
  void Null();
  Status EndRow();

  // Writes what is buffered and the footer. Nothing may be added afterwards.
  Status Finish();

  int64_t rows() const { return total_rows_; }

 private:
  struct ColumnBuffer {
    std::string values;            // PLAIN-encoded non-null values
    std::vector<uint8_t> defined;  // optional columns: 1 per present value, 0 per null
    int64_t present = 0;           // non-null values (booleans are packed 8 a byte)
  };
  struct ChunkInfo {
    int64_t page_offset = 0;
    int64_t size = 0;  // page header + page
  };
  struct RowGroupInfo {
    std::vector<ChunkInfo> chunks;
    int64_t rows = 0;
    int64_t bytes = 0;
  };

  ColumnBuffer* NextColumn(ColumnType type);
  Status FlushRowGroup();
  Status WriteChunk(size_t column, ChunkInfo* info);
  std::string EncodeFooter() const;
  Status Emit(std::string_view bytes);

  std::vector<ColumnSpec> columns_;
  ByteSink sink_;
  std::string created_by_;
  size_t row_group_bytes_;
  std::vector<ColumnBuffer> buffers_;
  std::vector<RowGroupInfo> row_groups_;
  size_t next_column_ = 0;
  std::string row_error_;  // the first misuse within the current row
  int64_t group_rows_ = 0;
  int64_t total_rows_ = 0;
  size_t buffered_bytes_ = 0;
  int64_t offset_ = 0;  // bytes written so far
  bool finished_ = false;
};

// The RLE/bit-packing hybrid encoding of 0/1 levels (bit width 1) as runs of repeated
// values; exposed for its unit test.
std::string EncodeLevelRuns(const std::vector<uint8_t>& levels);

}  // namespace kraken::parquet
