// Importer for Orion's per-operator kernel lists (eth-easl/orion,
// benchmarking/model_kernels/*): one CSV per model pass, one row per GPU operator, with
// the compute/memory label Orion's own roofline step gave it.
//
//   Name,Profile,Memory_footprint,SM_usage,Duration
//   Conv,1,0,98,101183
//
// The lists hold durations only, no timestamps, so the profile has no timeline
// (kernel_timestamps_valid = false, every start_ns = 0). They do not name the device
// either (Orion's README says a V100-16GB): callers pass the device themselves.
#include <cmath>
#include <limits>

#include "base/csv_reader.h"
#include "base/text.h"
#include "importers/builtin_importers.h"

namespace kraken {
namespace {

constexpr std::string_view kHeader = "Name,Profile,Memory_footprint,SM_usage,Duration";
constexpr size_t kColumns = 5;

// The first line of `text` without its line ending (and without a UTF-8 byte-order mark).
std::string_view FirstLine(std::string_view text) {
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Durations are integer nanoseconds in every known file; a decimal value is accepted
// and rounded, anything negative or non-finite is a bad row.
std::optional<TimeNs> ParseDurationNs(std::string_view s) {
  if (auto n = ParseInt64(s)) return *n >= 0 ? std::optional<TimeNs>(*n) : std::nullopt;
  auto d = ParseDouble(s);
  if (!d || !std::isfinite(*d) || *d < 0 || *d > static_cast<double>(std::numeric_limits<TimeNs>::max() / 2))
    return std::nullopt;
  return static_cast<TimeNs>(std::llround(*d));
}

struct OrionRow {
  std::string_view name;
  std::string_view profile_label;
  int32_t sm_usage = 0;
  TimeNs duration_ns = 0;
};

std::optional<OrionRow> ParseRow(const std::vector<std::string>& fields) {
  if (fields.size() != kColumns) return std::nullopt;
  OrionRow row;
  row.name = Trim(fields[0]);
  row.profile_label = Trim(fields[1]);
  if (row.name.empty() || !ParseInt64(row.profile_label)) return std::nullopt;
  // Memory_footprint is validated but not kept: every known file holds only 0 or 1 in
  // it (a flag, not a byte count), and the model has no field it would mean anything in.
  if (!ParseInt64(fields[2])) return std::nullopt;
  auto sm_usage = ParseInt64(fields[3]);
  if (!sm_usage || *sm_usage < 0 || *sm_usage > std::numeric_limits<int32_t>::max()) return std::nullopt;
  row.sm_usage = static_cast<int32_t>(*sm_usage);
  auto duration = ParseDurationNs(fields[4]);
  if (!duration) return std::nullopt;
  row.duration_ns = *duration;
  return row;
}

bool IsBlank(const std::vector<std::string>& fields) {
  return fields.size() == 1 && Trim(fields[0]).empty();
}

class OrionCsvImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "orion-csv", "Orion per-operator kernel list with compute/memory labels (eth-easl/orion)",
        "benchmarking/model_kernels/* CSV: Name,Profile,Memory_footprint,SM_usage,Duration"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override {
    return FirstLine(head) == kHeader ? SniffResult::kYes : SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*input.stream));
    if (FirstLine(text) != kHeader)
      return InvalidInput("line 1: not the Orion header \"" + std::string(kHeader) + "\"");
    if (StartsWith(text, "\xEF\xBB\xBF")) text.erase(0, 3);

    Profile profile;
    // Orion lists durations only: there is no timeline to analyse.
    profile.metadata.kernel_timestamps_valid = false;

    CsvReader reader(text);
    std::vector<std::string> fields;
    reader.Next(&fields);  // the header, checked above
    int64_t bad_rows = 0;
    size_t first_bad_line = 0;
    size_t last_line = 0;
    bool last_row_bad = false;
    while (reader.Next(&fields)) {
      if (reader.unterminated_quote())
        return InvalidInput("line " + std::to_string(reader.line()) + ": quoted field never closed (truncated file?)");
      if (IsBlank(fields)) continue;
      last_line = reader.line();
      std::optional<OrionRow> row = ParseRow(fields);
      last_row_bad = !row.has_value();
      if (!row) {
        ++bad_rows;
        if (first_bad_line == 0) first_bad_line = reader.line();
        continue;
      }
      AddRow(*row, &profile);
    }
    bool ends_with_newline = !text.empty() && text.back() == '\n';
    if (last_row_bad && !ends_with_newline)
      return InvalidInput("line " + std::to_string(last_line) + ": file ends inside a row (truncated?)");
    if (profile.kernels.empty()) {
      if (first_bad_line != 0)
        return InvalidInput("line " + std::to_string(first_bad_line) + ": no row of the file is a valid Orion row");
      return InvalidInput("line 1: Orion header but no rows");
    }
    if (bad_rows > 0) profile.import_counters["orion_bad_rows"] = bad_rows;
    profile.import_counters["orion_rows"] = static_cast<int64_t>(profile.kernels.size());
    // The profile joins the sink only once the file proved usable.
    sink.AddProfile(input, descriptor().name, std::move(profile));
    return Status::Ok();
  }

 private:
  static void AddRow(const OrionRow& row, Profile* profile) {
    Kernel kernel;
    kernel.name = profile->strings.Intern(row.name);
    kernel.start_ns = 0;  // no timestamps in the source; never invented
    kernel.duration_ns = row.duration_ns;
    // SM_usage is the number of thread blocks Orion computed for the operator's grid
    // (its "SMs needed"), not a grid shape: it is kept as a 1-D grid of that many blocks.
    kernel.grid = {row.sm_usage, 1, 1};
    profile->kernels.push_back(kernel);
    profile->kernel_labels.push_back(
        KernelLabel{std::string(row.name), std::string(row.profile_label), "orion"});
  }
};

}  // namespace

std::unique_ptr<Importer> CreateOrionCsvImporter() { return std::make_unique<OrionCsvImporter>(); }

}  // namespace kraken
