// The plan CSV and --workload flags: workloads given by hand, without a profile.
#include <map>

#include "analysis/mig/mig_plan.h"
#include "base/csv_reader.h"
#include "base/number_input.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken::mig {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Far above any GPU's memory, small enough that a count of GPUs derived from it fits an int.
constexpr double kMaxMemoryGiB = 1e6;

std::string Where(size_t line) { return "line " + std::to_string(line) + ": "; }

Result<double> Number(const std::string& text, const char* column, double low, double high, size_t line) {
  auto value = ParseBoundedNumber(text, low, high);
  if (!value)
    return InvalidInput(Where(line) + column + " must be a number in [" + FormatFixed(low, 0) + ", " + FormatFixed(high, 0) +
                        "], got '" + text + "'");
  return *value;
}

MigWorkload Workload(std::string name, double memory_gib, double sm_fraction, std::string basis) {
  MigWorkload w;
  w.name = std::move(name);
  w.source = "csv";
  w.workload_type = "unknown";
  w.need.memory_measured = true;
  w.need.memory_bytes = memory_gib * kGiB;
  w.need.memory_basis = basis;
  w.need.compute_measured = true;
  w.need.compute_mean = w.need.compute_p95 = w.need.compute_max = sm_fraction;
  w.need.compute_basis = std::move(basis);
  return w;
}

}  // namespace

bool LooksLikeMigPlanCsv(std::string_view head) {
  std::string first = ToLower(head.substr(0, head.find('\n')));
  return first.find("name") != std::string::npos && first.find("memory_gib") != std::string::npos &&
         first.find("sm_fraction") != std::string::npos;
}

Result<std::vector<MigWorkload>> ParseMigPlanCsv(std::string_view text) {
  CsvReader reader(text);
  std::vector<std::string> fields;
  if (!reader.Next(&fields)) return InvalidInput("line 1: empty plan CSV");
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < fields.size(); ++i) column[ToLower(Trim(fields[i]))] = i;
  for (const char* required : {"name", "memory_gib", "sm_fraction"})
    if (!column.count(required)) return InvalidInput(std::string("line 1: the header has no '") + required + "' column");
  std::vector<MigWorkload> out;
  while (reader.Next(&fields)) {
    size_t line = reader.line();
    if (fields.size() == 1 && Trim(fields[0]).empty()) continue;  // blank line
    auto get = [&](const char* name) -> std::string {
      auto it = column.find(name);
      return it != column.end() && it->second < fields.size() ? std::string(Trim(fields[it->second])) : "";
    };
    std::string name = get("name");
    if (name.empty()) return InvalidInput(Where(line) + "empty name");
    KRAKEN_ASSIGN_OR_RETURN(double memory, Number(get("memory_gib"), "memory_gib", 0, kMaxMemoryGiB, line));
    KRAKEN_ASSIGN_OR_RETURN(double sm, Number(get("sm_fraction"), "sm_fraction", 0, 1, line));
    MigWorkload w = Workload(name, memory, sm, "plan CSV line " + std::to_string(line));
    if (std::string type = ToLower(get("type")); !type.empty()) w.workload_type = type;
    if (std::string peak = get("sm_peak"); !peak.empty()) {
      KRAKEN_ASSIGN_OR_RETURN(w.need.compute_max, Number(peak, "sm_peak", 0, 1, line));
    }
    if (std::string comm = get("comm_share"); !comm.empty()) {
      KRAKEN_ASSIGN_OR_RETURN(w.communication_share, Number(comm, "comm_share", 0, 1, line));
    }
    if (std::string nvlink = get("nvlink_gbps"); !nvlink.empty()) {
      KRAKEN_ASSIGN_OR_RETURN(double gbps, Number(nvlink, "nvlink_gbps", 0, 1e6, line));
      w.nvlink_bytes_per_s = gbps * 1e9;
    }
    if (std::string burst = get("burst_ratio"); !burst.empty()) {
      KRAKEN_ASSIGN_OR_RETURN(w.burst_ratio, Number(burst, "burst_ratio", 0, 1e6, line));
    }
    out.push_back(std::move(w));
  }
  return out;
}

Result<MigWorkload> ParseMigWorkloadFlag(std::string_view text) {
  auto parts = Split(text, ':');
  if (parts.size() != 3 || Trim(parts[0]).empty())
    return InvalidInput("--workload expects NAME:MEMORY_GIB:SM_FRACTION (e.g. bert:12:0.25), got '" + std::string(text) + "'");
  auto memory = ParseBoundedNumber(parts[1], 0, kMaxMemoryGiB);
  auto sm = ParseBoundedNumber(parts[2], 0, 1);
  if (!memory)
    return InvalidInput("--workload memory '" + std::string(parts[1]) + "' is not a number of GiB in [0, " +
                        FormatFixed(kMaxMemoryGiB, 0) + "]");
  if (!sm)
    return InvalidInput("--workload SM fraction '" + std::string(parts[2]) + "' is not a number in [0, 1]");
  return Workload(std::string(Trim(parts[0])), *memory, *sm, "--workload " + std::string(text));
}

}  // namespace kraken::mig
