#include "importers/ncu/ncu_table.h"

#include <algorithm>

#include "base/csv_reader.h"
#include "base/text.h"
#include "importers/ncu/ncu_units.h"

namespace kraken::ncu {
namespace {

std::string AtLine(size_t line, std::string_view what) {
  return "line " + std::to_string(line) + ": " + std::string(what);
}

bool IsBlank(const std::vector<std::string>& fields) { return fields.size() == 1 && Trim(fields[0]).empty(); }

// Groups rows into one record per launch ID and turns printed values into base units.
class TableBuilder {
 public:
  TableBuilder(const Columns& columns, NcuTable* table) : columns_(columns), table_(table) {}

  void Count(const std::string& counter) { ++table_->counters[counter]; }

  // The record of `id`; identity fields still empty are taken from this row, so a
  // first row cut short does not leave its kernel nameless.
  NcuKernelRecord& RecordFor(int64_t id, const std::vector<std::string>& fields, size_t line) {
    auto [it, inserted] = index_.try_emplace(id, table_->kernels.size());
    if (inserted) {
      table_->kernels.emplace_back();
      table_->kernels.back().id = id;
      table_->kernels.back().line = line;
    }
    NcuKernelRecord& record = table_->kernels[it->second];
    Fill(&record.kernel_name, fields, columns_.kernel_name);
    Fill(&record.process_id, fields, columns_.process_id);
    Fill(&record.process_name, fields, columns_.process_name);
    Fill(&record.host_name, fields, columns_.host_name);
    Fill(&record.stream, fields, columns_.stream);
    Fill(&record.block_size, fields, columns_.block_size);
    Fill(&record.grid_size, fields, columns_.grid_size);
    Fill(&record.device, fields, columns_.device);
    Fill(&record.cc, fields, columns_.cc);
    return record;
  }

  void AddMetric(NcuKernelRecord& record, NcuMetric metric, std::string_view value, std::string_view unit) {
    metric.text = std::string(Trim(value));
    if (metric.text.empty()) {
      Count("ncu_empty_values");
      return;
    }
    std::optional<double> number = ParseNcuNumber(metric.text);
    if (!number) {
      // Kept as text: some are meant to be words (device__attribute_display_name).
      Count("ncu_non_numeric_values");
      record.metrics.push_back(std::move(metric));
      return;
    }
    std::optional<NcuUnit> normalized = NormalizeNcuUnit(unit);
    if (!normalized) {
      Count("ncu_unknown_units");
      record.metrics.push_back(std::move(metric));
      return;
    }
    metric.value = *number * normalized->scale;
    metric.base_unit = std::move(normalized->base);
    record.metrics.push_back(std::move(metric));
  }

  void Finish() {
    std::stable_sort(table_->kernels.begin(), table_->kernels.end(),
                     [](const NcuKernelRecord& a, const NcuKernelRecord& b) { return a.id < b.id; });
  }

 private:
  static void Fill(std::string* target, const std::vector<std::string>& fields, int column) {
    if (target->empty()) *target = std::string(Trim(Field(fields, column)));
  }

  const Columns& columns_;
  NcuTable* table_;
  std::map<int64_t, size_t> index_;
};

// Reads records until a non-blank one; false at the end of the text.
Result<bool> NextRecord(CsvReader& reader, size_t line_base, std::vector<std::string>* fields) {
  while (reader.Next(fields)) {
    if (reader.unterminated_quote())
      return InvalidInput(AtLine(line_base + reader.line(), "unterminated quoted field (is the file cut short?)"));
    if (!IsBlank(*fields)) return true;
  }
  return false;
}

Status ReadDetailsRows(CsvReader& reader, size_t line_base, const Columns& columns, TableBuilder& builder) {
  std::vector<std::string> fields;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool more, NextRecord(reader, line_base, &fields));
    if (!more) return Status::Ok();
    auto id = ParseInt64(Field(fields, columns.id));
    if (!id) {
      builder.Count("ncu_rows_without_kernel_id");
      continue;
    }
    NcuKernelRecord& record = builder.RecordFor(*id, fields, line_base + reader.line());
    if (fields.size() <= static_cast<size_t>(columns.metric_name)) {
      builder.Count("ncu_short_rows");
      continue;
    }
    // Rule rows (advice such as "SOLBottleneck") have no metric.
    if (Trim(Field(fields, columns.metric_name)).empty()) {
      builder.Count("ncu_rule_rows");
      continue;
    }
    if (fields.size() <= static_cast<size_t>(columns.metric_value)) {
      builder.Count("ncu_short_rows");
      continue;
    }
    NcuMetric metric;
    metric.section = std::string(Trim(Field(fields, columns.section)));
    metric.body_item_label = std::string(Trim(Field(fields, columns.body_item_label)));
    metric.name = std::string(Trim(Field(fields, columns.metric_name)));
    builder.AddMetric(record, std::move(metric), Field(fields, columns.metric_value),
                      Field(fields, columns.metric_unit));
  }
}

Status ReadRawRows(CsvReader& reader, size_t line_base, size_t header_line, const std::vector<std::string>& header,
                   const Columns& columns, TableBuilder& builder) {
  std::vector<std::string> units;
  KRAKEN_ASSIGN_OR_RETURN(bool have_units, NextRecord(reader, line_base, &units));
  if (!have_units) return InvalidInput(AtLine(header_line, "ncu raw CSV ends after its header: no kernel row"));
  if (!Trim(Field(units, columns.id)).empty()) {
    return InvalidInput(AtLine(line_base + reader.line(),
                               "ncu raw CSV has no units row under its header (its ID cell is not empty)"));
  }
  std::vector<std::string> fields;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool more, NextRecord(reader, line_base, &fields));
    if (!more) return Status::Ok();
    auto id = ParseInt64(Field(fields, columns.id));
    if (!id) {
      builder.Count("ncu_rows_without_kernel_id");
      continue;
    }
    NcuKernelRecord& record = builder.RecordFor(*id, fields, line_base + reader.line());
    if (fields.size() < header.size()) builder.Count("ncu_short_rows");
    size_t width = std::min(fields.size(), header.size());
    for (size_t column = 0; column < width; ++column) {
      if (!columns.is_metric[column]) continue;
      NcuMetric metric;
      metric.name = std::string(Trim(header[column]));
      builder.AddMetric(record, std::move(metric), fields[column], Field(units, static_cast<int>(column)));
    }
  }
}

}  // namespace

Result<NcuTable> ReadNcuTable(std::string_view text) {
  std::optional<HeaderLine> header_line = FindHeaderLine(text);
  if (!header_line) {
    return InvalidInput(AtLine(1, "no Nsight Compute table: no line starts with an \"ID\" column (ncu --csv output)"));
  }
  size_t line_base = header_line->line - 1;
  CsvReader reader(text.substr(header_line->offset));
  std::vector<std::string> header;
  reader.Next(&header);
  if (reader.unterminated_quote()) return InvalidInput(AtLine(header_line->line, "unterminated quoted field"));
  KRAKEN_ASSIGN_OR_RETURN(Columns columns, ReadColumns(header, header_line->line));

  NcuTable table;
  table.layout = columns.layout;
  if (header_line->lines_skipped > 0)
    table.counters["ncu_prologue_lines"] = static_cast<int64_t>(header_line->lines_skipped);
  TableBuilder builder(columns, &table);
  if (columns.layout == Layout::kDetails) {
    KRAKEN_RETURN_IF_ERROR(ReadDetailsRows(reader, line_base, columns, builder));
  } else {
    KRAKEN_RETURN_IF_ERROR(ReadRawRows(reader, line_base, header_line->line, header, columns, builder));
  }
  if (table.kernels.empty()) {
    size_t last_line = std::max(header_line->line, line_base + reader.line());
    return InvalidInput(AtLine(last_line, "ncu CSV has a header but no kernel row"));
  }
  builder.Finish();
  return table;
}

}  // namespace kraken::ncu
