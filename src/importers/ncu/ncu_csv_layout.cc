#include "importers/ncu/ncu_csv_layout.h"

#include "base/text.h"

namespace kraken::ncu {
namespace {

bool StartsWithIdField(std::string_view line) {
  line = Trim(line);
  if (StartsWith(line, "\xEF\xBB\xBF")) line.remove_prefix(3);
  return StartsWith(line, "\"ID\",") || StartsWith(line, "ID,");
}

}  // namespace

std::optional<HeaderLine> FindHeaderLine(std::string_view text) {
  HeaderLine header;
  size_t offset = 0;
  while (offset < text.size()) {
    size_t end = text.find('\n', offset);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(offset, end - offset);
    if (StartsWithIdField(line)) {
      header.offset = offset;
      return header;
    }
    if (!Trim(line).empty()) ++header.lines_skipped;
    ++header.line;
    offset = end + 1;
  }
  return std::nullopt;
}

Result<Columns> ReadColumns(const std::vector<std::string>& header, size_t line) {
  Columns columns;
  columns.is_metric.assign(header.size(), false);
  struct Named {
    std::string_view name;
    int* column;
  };
  const Named identity[] = {
      {"ID", &columns.id},
      {"Process ID", &columns.process_id},
      {"Process Name", &columns.process_name},
      {"Host Name", &columns.host_name},
      {"Kernel Name", &columns.kernel_name},
      {"Kernel Time", &columns.kernel_time},
      {"Context", &columns.context},
      {"Stream", &columns.stream},
      {"Block Size", &columns.block_size},
      {"Grid Size", &columns.grid_size},
      {"Device", &columns.device},
      {"CC", &columns.cc},
      {"Section Name", &columns.section},
      {"Body Item Label", &columns.body_item_label},
      {"Metric Name", &columns.metric_name},
      {"Metric Unit", &columns.metric_unit},
      {"Metric Value", &columns.metric_value},
  };
  // Rule columns of newer details exports carry advice text, not measurements.
  const std::string_view ignored[] = {"Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type",
                                      "Estimated Speedup"};
  for (size_t i = 0; i < header.size(); ++i) {
    std::string_view name = Trim(header[i]);
    if (i == 0 && StartsWith(name, "\xEF\xBB\xBF")) name.remove_prefix(3);
    bool known = false;
    for (const Named& named : identity) {
      if (name == named.name) {
        if (*named.column < 0) *named.column = static_cast<int>(i);
        known = true;
      }
    }
    for (std::string_view rule : ignored) known = known || name == rule;
    columns.is_metric[i] = !known && !name.empty();
  }
  std::string where = "line " + std::to_string(line) + ": ";
  if (columns.id < 0) return InvalidInput(where + "ncu CSV header has no \"ID\" column");
  if (columns.kernel_name < 0) return InvalidInput(where + "ncu CSV header has no \"Kernel Name\" column");
  bool details = columns.metric_name >= 0 || columns.metric_value >= 0;
  if (details && (columns.metric_name < 0 || columns.metric_value < 0))
    return InvalidInput(where + "ncu CSV header has only one of \"Metric Name\" and \"Metric Value\"");
  columns.layout = details ? Layout::kDetails : Layout::kRaw;
  if (details) columns.is_metric.assign(header.size(), false);
  return columns;
}

std::optional<Dim3> ParseDim3(std::string_view text) {
  text = Trim(text);
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
  std::vector<std::string_view> parts = Split(text.substr(1, text.size() - 2), ',');
  if (parts.size() != 3) return std::nullopt;
  Dim3 dims{0, 0, 0};
  for (size_t i = 0; i < 3; ++i) {
    auto value = ParseInt64(parts[i]);
    if (!value || *value < 0 || *value > INT32_MAX) return std::nullopt;
    dims[i] = static_cast<int32_t>(*value);
  }
  return dims;
}

std::string_view Field(const std::vector<std::string>& fields, int column) {
  if (column < 0 || static_cast<size_t>(column) >= fields.size()) return {};
  return fields[static_cast<size_t>(column)];
}

}  // namespace kraken::ncu
