// Importer for the cluster-occupancy series of the Helios artifact
// (S-Lab-System-Group/HeliosArtifact, SC'21):
//
//   philly_node_sequence.csv   time,active,total              servers occupied, per minute
//   <vc>_cluster_sequence_vc   time,total_job_num,...          one Earth virtual cluster, per minute
//   Earth_gpu_number.csv       date,vchbv,vc4om,...,total      GPUs per virtual cluster, per day
//
// One Series per column (the daily file: field "gpu_num", one virtual cluster per column,
// "all" for its total). These are ALLOCATION counts (how many GPUs or servers jobs hold),
// not measured utilization, so every series is Metric::kOther with the column as
// source_name and labels["unit"]; even `gpu_utilization` (running_gpu_num / total_gpu_num)
// is an allocation ratio, not NVML's utilization.gpu. The files give no time zone: their
// clock is read as UTC. helios_cluster_summary.csv (one row per cluster) is no series and
// is not read here.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/common/civil_time.h"
#include "importers/common/line_reader.h"

namespace kraken {
namespace {

constexpr std::string_view kPhillyHeader = "time,active,total";
constexpr std::string_view kVcHeader =
    "time,total_job_num,running_job_num,pending_job_num,total_gpujob_num,running_gpujob_num,pending_gpujob_num,"
    "total_gpu_num,running_gpu_num,pending_gpu_num,idle_gpu_num,gpu_utilization,running_gpu_num_noless_8,"
    "running_gpu_num_less_8,pending_gpu_num_noless_8,pending_gpu_num_less_8,total_gpu_num_noless_8,"
    "total_gpu_num_less_8,running_job_num_noless_8,running_job_num_less_8,pending_job_num_noless_8,"
    "pending_job_num_less_8,total_job_num_noless_8,total_job_num_less_8";
constexpr std::string_view kVcFileSuffix = "_cluster_sequence_vc";

std::string_view StripLineEnd(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view FirstLine(std::string_view head) {
  if (StartsWith(head, "\xEF\xBB\xBF")) head.remove_prefix(3);
  return StripLineEnd(head.substr(0, head.find('\n')));
}

enum class Layout { kNone, kPhillyMinutes, kVcMinutes, kDailyVcGpus };

// The daily file names its columns after the virtual clusters ("vc" + 3 letters), so only
// the shape is fixed: "date", one or more vc* columns, "total".
bool IsDailyVcHeader(std::string_view line) {
  std::vector<std::string_view> names = Split(line, ',');
  if (names.size() < 3 || names.front() != "date" || names.back() != "total") return false;
  for (size_t i = 1; i + 1 < names.size(); ++i)
    if (!StartsWith(names[i], "vc") || names[i].size() < 3) return false;
  return true;
}

Layout LayoutOf(std::string_view header) {
  if (header == kPhillyHeader) return Layout::kPhillyMinutes;
  if (header == kVcHeader) return Layout::kVcMinutes;
  if (IsDailyVcHeader(header)) return Layout::kDailyVcGpus;
  return Layout::kNone;
}

std::string UnitOfColumn(std::string_view column, Layout layout) {
  if (layout == Layout::kPhillyMinutes) return "servers";
  if (layout == Layout::kDailyVcGpus) return "GPUs";
  if (column == "gpu_utilization") return "ratio";
  if (column.find("job_num") != std::string_view::npos || column.find("gpujob_num") != std::string_view::npos)
    return "jobs";
  return "GPUs";
}

// "path/to/vc3sl_cluster_sequence_vc.csv.gz" -> "vc3sl"; the file name is the only place
// the virtual cluster is named. Empty when the name does not follow the artifact's scheme.
std::string VcFromFileName(std::string_view display_name) {
  std::string_view base = BaseName(display_name);
  size_t at = base.find(kVcFileSuffix);
  if (at == std::string_view::npos || at == 0) return "";
  return std::string(base.substr(0, at));
}

std::string SequenceName(std::string_view display_name) {
  std::string_view base = BaseName(display_name);
  return std::string(base.substr(0, base.find('.')));
}

class HeliosImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "helios-sequence",
        "Helios artifact cluster-occupancy series: Philly active servers and Earth virtual-cluster GPU "
        "allocation per minute, GPUs per virtual cluster per day",
        "philly_node_sequence.csv, <vc>_cluster_sequence_vc.csv, Earth_gpu_number.csv (.gz too)"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override {
    return LayoutOf(FirstLine(head)) == Layout::kNone ? SniffResult::kNo : SniffResult::kYes;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    prometheus::LineReader reader(*input.stream, input.progress);
    std::string_view line;
    KRAKEN_ASSIGN_OR_RETURN(bool any, reader.Next(&line));
    if (!any) return InvalidInput("line 1: empty file");
    if (StartsWith(line, "\xEF\xBB\xBF")) line.remove_prefix(3);
    std::string header(StripLineEnd(line));
    Layout layout = LayoutOf(header);
    if (layout == Layout::kNone) return InvalidInput("line 1: not a Helios sequence header");
    std::vector<std::string_view> columns = Split(header, ',');

    Profile profile;
    std::string vc = VcFromFileName(input.display_name);
    for (size_t c = 1; c < columns.size(); ++c) {
      Series& s = profile.series.emplace_back();
      s.source_name = std::string(columns[c]);
      s.entity.labels["unit"] = UnitOfColumn(columns[c], layout);
      if (layout == Layout::kDailyVcGpus) {
        // The daily file names each column after its virtual cluster; what it counts is
        // the cluster's GPUs, so that is the field, and the column is the entity.
        s.source_name = "gpu_num";
        s.entity.labels["vc"] = columns[c] == "total" ? "all" : std::string(columns[c]);
      } else if (!vc.empty()) {
        s.entity.labels["vc"] = vc;
      } else {
        s.entity.labels["sequence"] = SequenceName(input.display_name);
      }
    }

    int64_t rows = 0, bad_rows = 0, bad_values = 0, out_of_order = 0, duplicates = 0;
    int64_t previous_ns = std::numeric_limits<int64_t>::min();
    bool last_row_bad = false;
    std::vector<std::string_view> fields;
    while (true) {
      KRAKEN_ASSIGN_OR_RETURN(bool more, reader.Next(&line));
      if (!more) break;
      line = StripLineEnd(line);
      if (Trim(line).empty()) continue;
      fields = Split(line, ',');
      std::optional<int64_t> parsed = fields.size() == columns.size() ? ParseCivilTimeNs(fields[0]) : std::nullopt;
      // A date-only row in a per-minute file (or the reverse) is as wrong as garbage.
      bool date_only = Trim(fields[0]).size() == 10;
      last_row_bad = !parsed.has_value() || reader.overlong() || date_only != (layout == Layout::kDailyVcGpus);
      if (last_row_bad) {
        ++bad_rows;
        continue;
      }
      const int64_t time_ns = parsed.value_or(0);
      ++rows;
      if (time_ns < previous_ns) ++out_of_order;
      if (time_ns == previous_ns) ++duplicates;
      previous_ns = time_ns;
      for (size_t c = 1; c < fields.size(); ++c) {
        std::optional<double> value = ParseDouble(fields[c]);
        if (!value || !std::isfinite(*value)) {
          ++bad_values;
          continue;
        }
        profile.series[c - 1].samples.push_back(Sample{time_ns, *value});
      }
    }
    KRAKEN_RETURN_IF_ERROR(reader.CheckLastRowComplete(last_row_bad));
    if (rows == 0) return InvalidInput("line 2: Helios sequence header but no valid rows");

    profile.import_counters["helios_rows"] = rows;
    if (bad_rows > 0) profile.import_counters["helios_bad_rows"] = bad_rows;
    if (bad_values > 0) profile.import_counters["helios_unparsable_values"] = bad_values;
    if (out_of_order > 0) {
      // Rows were written in time order in every known file; if not, order them, since
      // every analysis of a series assumes it.
      profile.import_counters["helios_out_of_order_rows"] = out_of_order;
      for (Series& s : profile.series)
        std::stable_sort(s.samples.begin(), s.samples.end(),
                         [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; });
    }
    if (duplicates > 0) profile.import_counters["helios_duplicate_timestamps"] = duplicates;
    profile.metadata.attributes["clock"] = "file's local clock, read as UTC";
    sink.AddProfile(input, descriptor().name, std::move(profile));
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Importer> CreateHeliosSequenceImporter() { return std::make_unique<HeliosImporter>(); }

}  // namespace kraken
