// Importer for dcgm-exporter's collectors CSV (etc/default-counters.csv,
// etc/dcp-metrics-included.csv, etc/1.x-compatibility-metrics.csv): which fields an
// exporter is configured to publish. One row per field:
//
//   DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).
//   # DCGM_FI_PROF_SM_ACTIVE, gauge, ...      <- commented out: not collected
//
// Fields are trimmed (a shipped row reads "DCGM_FI_DEV_DEC_UTIL ,"). dcgm-exporter reads
// the file with Go's CSV reader, so a help text may be quoted; an unquoted help text with
// commas (which the exporter refuses) is kept whole and counted. The 1.x file has the
// same shape with the old lowercase names; the catalog maps them to their fields.
#include <optional>
#include <set>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "model/dcgm_metric_catalog.h"
#include "importers/common/exposition_parser.h"
#include "importers/common/line_reader.h"

namespace kraken {
namespace {

constexpr std::string_view kFormatName = "dcgm-counters";
// The header comment every shipped collectors file starts with.
constexpr std::string_view kHeaderComment = "DCGM FIELD, Prometheus metric type, help message";

struct CounterRow {
  std::string_view field;
  std::string type;  // lower case: gauge, counter or label
  std::string help;
  bool help_had_commas = false;
};

bool IsFieldName(std::string_view name) { return prometheus::IsLabelName(name); }

// "FIELD, type, help" with whitespace around each part; nullopt when the line has
// another shape. `error` says why, for messages.
std::optional<CounterRow> ParseCounterRow(std::string_view line, std::string* error) {
  size_t first = line.find(',');
  size_t second = first == std::string_view::npos ? first : line.find(',', first + 1);
  if (second == std::string_view::npos) {
    *error = "expected 'FIELD, type, help' (2 commas)";
    return std::nullopt;
  }
  CounterRow row;
  row.field = Trim(line.substr(0, first));
  row.type = ToLower(Trim(line.substr(first + 1, second - first - 1)));
  std::string_view help = Trim(line.substr(second + 1));
  if (!IsFieldName(row.field)) {
    // Appended piecewise: GCC 12 reports a false -Wrestrict on "'" + std::string(...).
    error->assign(1, '\'').append(row.field).append("' is not a field name");
    return std::nullopt;
  }
  if (row.type != "gauge" && row.type != "counter" && row.type != "label") {
    *error = "unknown metric type '" + row.type + "' (gauge, counter or label)";
    return std::nullopt;
  }
  if (help.size() >= 2 && help.front() == '"' && help.back() == '"') {
    help = help.substr(1, help.size() - 2);
    for (size_t i = 0; i < help.size(); ++i) {
      row.help.push_back(help[i]);
      if (help[i] == '"' && i + 1 < help.size() && help[i + 1] == '"') ++i;  // "" is one quote
    }
  } else {
    row.help = std::string(help);
    row.help_had_commas = help.find(',') != std::string_view::npos;
  }
  return row;
}

bool IsDcgmFieldOrOldName(std::string_view field) {
  return StartsWith(field, "DCGM_FI_") || StartsWith(field, "DCGM_EXP_") || StartsWith(field, "dcgm_");
}

// The header comment block, or first rows that all have the row shape.
SniffResult SniffCounters(std::string_view head) {
  std::vector<std::string_view> lines = Split(head, '\n');
  if (head.size() >= kSniffBytes && lines.size() > 1) lines.pop_back();  // possibly cut
  size_t rows = 0, dcgm_rows = 0;
  std::string error;
  for (std::string_view raw : lines) {
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (EqualsIgnoreCase(Trim(line.substr(1)), kHeaderComment)) return SniffResult::kYes;
      continue;
    }
    std::optional<CounterRow> row = ParseCounterRow(line, &error);
    if (!row) return SniffResult::kNo;
    ++rows;
    if (IsDcgmFieldOrOldName(row->field)) ++dcgm_rows;
    if (rows == 5) break;
  }
  if (rows == 0) return SniffResult::kNo;
  return dcgm_rows == rows ? SniffResult::kYes : SniffResult::kMaybe;
}

class DcgmCountersImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        kFormatName, "dcgm-exporter collectors CSV: the fields an exporter publishes (current and 1.x names)",
        "default-counters.csv, dcp-metrics-included.csv, 1.x-compatibility-metrics.csv"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override { return SniffCounters(head); }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    Profile& profile = sink.NewProfile(input, kFormatName);
    Status status = Read(input, &profile);
    if (!status.ok()) sink.profiles().pop_back();
    return status;
  }

 private:
  static Status Read(ImportInput& input, Profile* profile) {
    prometheus::LineReader reader(*input.stream, input.progress);
    std::set<std::string, std::less<>> declared;
    int64_t commented_out = 0, bad_rows = 0, duplicates = 0, unknown_fields = 0, help_commas = 0;
    bool old_names = false;
    size_t first_bad_line = 0;
    std::string first_error, error;
    std::string_view raw;
    while (true) {
      KRAKEN_ASSIGN_OR_RETURN(bool more, reader.Next(&raw));
      if (!more) break;
      std::string_view line = Trim(raw);
      if (line.empty() && !reader.overlong()) continue;
      if (!line.empty() && line[0] == '#') {
        // "# DCGM_FI_PROF_SM_ACTIVE, gauge, ..." is a field switched off, not a remark.
        if (ParseCounterRow(Trim(line.substr(1)), &error)) ++commented_out;
        continue;
      }
      std::optional<CounterRow> row =
          reader.overlong() ? std::nullopt : ParseCounterRow(line, &error);
      if (!row) {
        if (reader.overlong()) error = "line too long";
        ++bad_rows;
        if (first_bad_line == 0) {
          first_bad_line = reader.line_number();
          first_error = error;
        }
        continue;
      }
      if (!declared.emplace(row->field).second) {
        ++duplicates;  // the 1.x file lists dcgm_fi_prof_pcie_{tx,rx}_bytes twice
        continue;
      }
      MetricDeclaration& declaration = profile->metric_declarations.emplace_back();
      declaration.source_name = std::string(row->field);
      declaration.type = row->type;
      declaration.help = row->help;
      help_commas += row->help_had_commas;
      const prometheus::DcgmMetricEntry* entry = prometheus::FindDcgmMetric(row->field);
      if (entry != nullptr) {
        declaration.metric = entry->metric;
        if (entry->legacy_name == row->field) declaration.current_name = std::string(entry->field);
      }
      if (StartsWith(row->field, "dcgm_")) old_names = true;
      if (entry == nullptr && !StartsWith(row->field, "DCGM_")) ++unknown_fields;
    }
    if (profile->metric_declarations.empty() && commented_out == 0) {
      if (first_bad_line > 0) return InvalidInput("line " + std::to_string(first_bad_line) + ": " + first_error);
      return InvalidInput("line 1: no 'FIELD, type, help' rows");
    }
    profile->metadata.accelerator_vendor = Vendor::kNvidia;
    profile->metadata.attributes["dcgm_names"] = old_names ? "1.x" : "current";
    auto& counters = profile->import_counters;
    counters["dcgm_counters_enabled"] = static_cast<int64_t>(profile->metric_declarations.size());
    counters["dcgm_counters_commented_out"] = commented_out;
    const std::pair<const char*, int64_t> when_nonzero[] = {{"dcgm_counters_bad_rows", bad_rows},
                                                            {"dcgm_counters_duplicate_fields", duplicates},
                                                            {"dcgm_counters_unknown_fields", unknown_fields},
                                                            {"dcgm_counters_help_with_commas", help_commas}};
    for (const auto& [name, value] : when_nonzero)
      if (value > 0) counters[name] = value;
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Importer> CreateDcgmCountersImporter() { return std::make_unique<DcgmCountersImporter>(); }

}  // namespace kraken
