// The shape of an Nsight Compute CSV: where its table starts (ncu's stdout mixes
// "==PROF==" lines and the application's own output in front of it) and which columns
// it has. Two layouts exist:
//   details (--page details, --metrics, section exports): one row per launch ID x metric,
//     "Section Name"/"Metric Name"/"Metric Unit"/"Metric Value" columns, optional
//     "Body Item Label" and "Rule ..." columns;
//   raw (--page raw): one row per launch, one column per metric, and a units row right
//     under the header.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace_events.h"

namespace kraken::ncu {

struct HeaderLine {
  size_t offset = 0;         // byte offset of the header line in the text
  size_t line = 1;           // its 1-based line number
  size_t lines_skipped = 0;  // non-blank lines in front of it
};

// The first line that starts with ID, quoted or not, followed by a comma. Only ncu's
// table starts that way; lines before it are prologue.
std::optional<HeaderLine> FindHeaderLine(std::string_view text);

enum class Layout { kDetails, kRaw };

// Positions of the columns kraken reads; -1 where a column is absent.
struct Columns {
  Layout layout = Layout::kDetails;
  int id = -1;
  int process_id = -1;
  int process_name = -1;
  int host_name = -1;
  int kernel_name = -1;
  int kernel_time = -1;  // older ncu, wall-clock second of the launch
  int context = -1;
  int stream = -1;
  int block_size = -1;
  int grid_size = -1;
  int device = -1;
  int cc = -1;
  // Details layout only.
  int section = -1;
  int body_item_label = -1;
  int metric_name = -1;
  int metric_unit = -1;
  int metric_value = -1;
  // Raw layout: true for the header columns that are metrics (all but the identity ones).
  std::vector<bool> is_metric;
};

// Reads the header record found at `line`. Fails when ID or Kernel Name is missing.
Result<Columns> ReadColumns(const std::vector<std::string>& header, size_t line);

// "(384, 1, 1)" -> {384, 1, 1}; nullopt for anything else.
std::optional<Dim3> ParseDim3(std::string_view text);

// The field at `column` of a record, or "" when the record is too short or the column absent.
std::string_view Field(const std::vector<std::string>& fields, int column);

}  // namespace kraken::ncu
