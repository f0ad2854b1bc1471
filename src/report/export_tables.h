// The flat tables of `kraken export --format csv|parquet` (docs/export.md): one table per
// kind of record, the same columns in CSV and Parquet, so that a Parquet file and the CSV
// of the same export hold the same rows.
//   kernels     one row per GPU kernel, with its counters where a profiler measured them
//   memory_ops  one row per memcpy/memset
//   cpu_ops     one row per CPU operator or annotation
//   steps       one row per training/inference step
//   samples     one row per sample of every metric series (the long format `kraken export
//               --format csv` always wrote)
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"
#include "model/profile.h"
#include "report/parquet/parquet_writer.h"

namespace kraken {

enum class ExportTable { kKernels, kMemoryOps, kCpuOps, kSteps, kSamples };

struct ExportTableInfo {
  ExportTable table;
  const char* name;  // "kernels", ...: the file name part and --table value
  std::vector<parquet::ColumnSpec> columns;
};

// Every table, in the order above.
const std::vector<ExportTableInfo>& ExportTables();
const ExportTableInfo* FindExportTable(std::string_view name);

// True when the profile has records for the table (samples: any series).
bool ExportTableHasRows(const Profile& profile, ExportTable table);

// A cell of a row: null, integer, number, text or flag (the column's type).
using ExportCell = std::variant<std::monostate, int64_t, double, std::string_view, bool>;

// Where a table's rows go: CSV text or a Parquet file, both through a byte sink.
class TableSink {
 public:
  virtual ~TableSink() = default;
  virtual Status Row(std::span<const ExportCell> cells) = 0;
  virtual Status Finish() = 0;
};
using ByteSink = std::function<Status(std::string_view bytes)>;
// CSV: a header of the column names, RFC 4180 quoting, null as an empty field, numbers in
// their shortest exact form, flags as true/false.
std::unique_ptr<TableSink> MakeCsvTableSink(const ExportTableInfo& table, ByteSink sink);
std::unique_ptr<TableSink> MakeParquetTableSink(const ExportTableInfo& table, ByteSink sink);

// The samples of series `index` of the profile: from memory, or from the store one series
// at a time (a day-long capture never has to be held whole).
using SampleReader = std::function<Result<std::vector<Sample>>(size_t series_index)>;

// Writes every row of `table` to `sink` (not Finish: the caller does, once).
Status WriteExportTable(const Profile& profile, ExportTable table, const SampleReader& samples, TableSink& sink);

}  // namespace kraken
