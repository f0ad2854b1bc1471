// The two ways a table of an export is written: CSV text and a Parquet file.
#include <charconv>

#include "report/export_tables.h"


namespace kraken {
namespace {

void AppendCsvText(std::string_view field, std::string& out) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out.push_back('"');
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

struct CsvCellAppender {
  std::string& out;
  void operator()(std::monostate) const {}
  void operator()(int64_t value) const { out += std::to_string(value); }
  void operator()(double value) const {
    char number[32];
    auto [end, ec] = std::to_chars(number, number + sizeof(number), value);
    out.append(number, ec == std::errc() ? end : number);
  }
  void operator()(std::string_view value) const { AppendCsvText(value, out); }
  void operator()(bool value) const { out += value ? "true" : "false"; }
};

class CsvTableSink : public TableSink {
 public:
  CsvTableSink(const ExportTableInfo& table, ByteSink sink) : sink_(std::move(sink)) {
    for (size_t i = 0; i < table.columns.size(); ++i) buffer_ += (i == 0 ? "" : ",") + table.columns[i].name;
    buffer_.push_back('\n');
  }
  Status Row(std::span<const ExportCell> cells) override {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) buffer_.push_back(',');
      std::visit(CsvCellAppender{buffer_}, cells[i]);
    }
    buffer_.push_back('\n');
    // Written in pieces of about 1 MiB: long tables stream instead of piling up.
    if (buffer_.size() >= (size_t{1} << 20)) return Flush();
    return Status::Ok();
  }
  Status Finish() override { return Flush(); }

 private:
  Status Flush() {
    Status status = sink_(buffer_);
    buffer_.clear();
    return status;
  }
  ByteSink sink_;
  std::string buffer_;
};

struct ParquetCellAppender {
  parquet::Writer& writer;
  void operator()(std::monostate) const { writer.Null(); }
  void operator()(int64_t value) const { writer.Int64(value); }
  void operator()(double value) const { writer.Double(value); }
  void operator()(std::string_view value) const { writer.String(value); }
  void operator()(bool value) const { writer.Bool(value); }
};

class ParquetTableSink : public TableSink {
 public:
  ParquetTableSink(const ExportTableInfo& table, ByteSink sink)
      : writer_(table.columns, std::move(sink), std::string("kraken version ") + KRAKEN_VERSION_STRING) {}
  Status Row(std::span<const ExportCell> cells) override {
    for (const ExportCell& cell : cells) std::visit(ParquetCellAppender{writer_}, cell);
    return writer_.EndRow();
  }
  Status Finish() override { return writer_.Finish(); }

 private:
  parquet::Writer writer_;
};

}  // namespace

std::unique_ptr<TableSink> MakeCsvTableSink(const ExportTableInfo& table, ByteSink sink) {
  return std::make_unique<CsvTableSink>(table, std::move(sink));
}

std::unique_ptr<TableSink> MakeParquetTableSink(const ExportTableInfo& table, ByteSink sink) {
  return std::make_unique<ParquetTableSink>(table, std::move(sink));
}

}  // namespace kraken
