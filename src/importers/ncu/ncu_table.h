// Reads an Nsight Compute CSV (details or raw layout) into one record per profiled
// launch ID, each with its metrics in base units. What is skipped is counted in
// `counters` under names starting with "ncu_".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "importers/ncu/ncu_csv_layout.h"

namespace kraken::ncu {

struct NcuMetric {
  std::string section;          // "GPU Speed Of Light Throughput"; "" in the raw layout
  std::string body_item_label;  // "Single Precision Roofline"; "" unless a section export
  std::string name;             // "dram__bytes.sum", "Duration", ...
  std::string text;             // the value as printed
  std::optional<double> value;  // the value in `base_unit`; absent when not a number
  std::string base_unit;        // see NcuUnit::base
};

// One profiled launch. The identity fields are kept as printed.
struct NcuKernelRecord {
  int64_t id = -1;
  size_t line = 0;  // where its first row is
  std::string kernel_name;
  std::string process_id;
  std::string process_name;
  std::string host_name;
  std::string stream;
  std::string block_size;
  std::string grid_size;
  std::string device;
  std::string cc;
  std::vector<NcuMetric> metrics;
};

struct NcuTable {
  Layout layout = Layout::kDetails;
  std::vector<NcuKernelRecord> kernels;  // in ID order
  std::map<std::string, int64_t> counters;
};

// Fails ("line N: ...") on a missing header, a header without ID or Kernel Name, an
// unterminated quote, a raw table without its units row, and a table without any
// kernel row.
Result<NcuTable> ReadNcuTable(std::string_view text);

}  // namespace kraken::ncu
