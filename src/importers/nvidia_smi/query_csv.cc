#include "importers/nvidia_smi/query_csv.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <set>
#include <unordered_map>

#include "base/text.h"
#include "importers/nvidia_smi/smi_values.h"

namespace kraken::nvidia_smi {
namespace {

// Columns a query header starts with (GPU identity, or the process of per-process queries).
constexpr std::string_view kFirstColumns[] = {"timestamp", "index",          "name",       "uuid",       "pci.bus_id",
                                              "gpu_name",  "gpu_uuid",       "gpu_bus_id", "gpu_serial", "pid",
                                              "count",     "driver_version", "serial"};

// Fields that tell an nvidia-smi header apart from any CSV with dotted names.
// clang-format off
constexpr std::string_view kKnownFields[] = {
    "timestamp", "driver_version", "count", "name", "serial", "uuid", "pci.bus_id", "index", "pstate",
    "fan.speed", "memory.total", "memory.used", "memory.free", "memory.reserved", "utilization.gpu",
    "utilization.memory", "temperature.gpu", "temperature.memory", "power.draw", "power.limit", "clocks.sm",
    "clocks.mem", "clocks.gr", "clocks.current.sm", "clocks.max.sm", "compute_mode", "compute_cap",
    "mig.mode.current", "pcie.link.gen.max", "gpu_name", "gpu_uuid", "gpu_bus_id", "gpu_serial", "pid",
    "process_name", "used_gpu_memory", "used_memory", "gpu_utilization", "mem_utilization", "max_memory_usage"};
// clang-format on

bool Contains(const auto& list, std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

bool IsFieldName(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; });
}

// A field that is a canonical metric. `unless` names a better field for the same metric:
// this one stands in only when the header lacks it (power.draw.average for power.draw).
struct MetricField {
  std::string_view name;
  Metric metric;
  std::string_view default_unit;  // what ,nounits without a header unit means
  std::string_view unless;
};

constexpr MetricField kMetricFields[] = {
    {"utilization.gpu", Metric::kGpuUtilPct, "%", ""},
    {"utilization.memory", Metric::kMemCopyUtilPct, "%", ""},
    {"utilization.encoder", Metric::kEncoderUtilPct, "%", ""},
    {"utilization.decoder", Metric::kDecoderUtilPct, "%", ""},
    {"memory.used", Metric::kFbUsedBytes, "MiB", ""},
    {"memory.free", Metric::kFbFreeBytes, "MiB", ""},
    {"memory.total", Metric::kFbTotalBytes, "MiB", ""},
    {"memory.reserved", Metric::kFbReservedBytes, "MiB", ""},
    {"power.draw", Metric::kPowerW, "W", ""},
    {"power.draw.average", Metric::kPowerW, "W", "power.draw"},
    {"enforced.power.limit", Metric::kPowerLimitW, "W", ""},
    {"power.limit", Metric::kPowerLimitW, "W", "enforced.power.limit"},
    {"clocks.current.sm", Metric::kSmClockMhz, "MHz", ""},
    {"clocks.sm", Metric::kSmClockMhz, "MHz", ""},
    {"clocks.current.memory", Metric::kMemClockMhz, "MHz", ""},
    {"clocks.mem", Metric::kMemClockMhz, "MHz", ""},
    {"temperature.gpu", Metric::kGpuTempC, "C", ""},
    {"temperature.memory", Metric::kMemTempC, "C", ""},
    {"used_gpu_memory", Metric::kProcessUsedMemoryBytes, "MiB", ""},
    {"used_memory", Metric::kProcessUsedMemoryBytes, "MiB", ""},
    {"retired_pages.single_bit_ecc.count", Metric::kRetiredPagesSbeCount, "", ""},
    {"retired_pages.double_bit.count", Metric::kRetiredPagesDbeCount, "", ""},
    {"retired_pages.pending", Metric::kRetiredPagesPending, "", ""},
    {"remapped_rows.correctable", Metric::kRemappedRowsCorrectableCount, "", ""},
    {"remapped_rows.uncorrectable", Metric::kRemappedRowsUncorrectableCount, "", ""},
    {"remapped_rows.pending", Metric::kRemappedRowsPending, "", ""},
    {"remapped_rows.failure", Metric::kRemappedRowsFailure, "", ""},
};

// Identity and configuration fields: numbers, but not measurements (serial, pci.domain,
// inforom.oem "2.1", compute_cap "9.0", clocks.max.sm go to DeviceInfo instead).
constexpr std::string_view kNotSeries[] = {"timestamp",   "count",    "serial",     "index", "compute_cap",
                                           "kmd_version", "hostname", "gpu_serial", "pid",   "accounting.buffer_size"};
constexpr std::string_view kNotSeriesPrefixes[] = {"pci.",       "inforom.",    "platform.", "fabric.",
                                                   "pcie.link.", "clocks.max.", "vgpu_",     "retired_pages.address"};

enum class Role { kTimestamp, kIndex, kUuid, kPci, kName, kPid, kProcessName, kHostname, kDriverVersion, kValue };

struct ColumnPlan {
  CsvColumn column;
  Role role = Role::kValue;
  Metric metric = Metric::kOther;
  std::string_view default_unit;
  bool series = true;         // kValue columns: false for identity/configuration numbers
  bool device_field = false;  // a static fact for DeviceInfo (see ApplyDeviceField)
};

constexpr std::string_view kDeviceFields[] = {"mig.mode.current",  "mig.mode.pending",     "compute_cap",
                                              "memory.total",      "clocks.max.sm",        "clocks.max.memory",
                                              "clocks.max.mem",    "enforced.power.limit", "power.limit",
                                              "pcie.link.gen.max", "pcie.link.width.max"};

// The series each column of one GPU's (or process's) rows goes to, so that long -l logs do
// not rebuild series keys for every value.
struct CachedSeries {
  size_t series = SIZE_MAX;
  std::string unit;  // the unit label the series was made with (kOther)
};

Role RoleOf(std::string_view name) {
  if (name == "timestamp") return Role::kTimestamp;
  if (name == "index") return Role::kIndex;
  if (name == "uuid" || name == "gpu_uuid") return Role::kUuid;
  if (name == "pci.bus_id" || name == "gpu_bus_id") return Role::kPci;
  if (name == "name" || name == "gpu_name") return Role::kName;
  if (name == "pid") return Role::kPid;
  if (name == "process_name") return Role::kProcessName;
  if (name == "hostname") return Role::kHostname;
  if (name == "driver_version") return Role::kDriverVersion;
  return Role::kValue;
}

// Static facts --query-gpu reports about the device itself.
void ApplyDeviceField(const ColumnPlan& plan, std::string_view text, bool header_has_enforced_limit,
                      DeviceInfo& device) {
  const std::string& name = plan.column.name;
  if (name == "mig.mode.current" || name == "mig.mode.pending") {
    if (IsMissingMarker(text)) return;
    bool enabled = EqualsIgnoreCase(Trim(text), "Enabled");
    (name == "mig.mode.current" ? device.mig_enabled : device.mig_enabled_pending) = enabled;
    return;
  }
  if (name == "compute_cap") {
    std::vector<std::string_view> parts = Split(Trim(text), '.');
    auto major = parts.size() == 2 ? ParseInt64(parts[0]) : std::nullopt;
    auto minor = parts.size() == 2 ? ParseInt64(parts[1]) : std::nullopt;
    if (major && minor) {
      device.compute_major = static_cast<int32_t>(*major);
      device.compute_minor = static_cast<int32_t>(*minor);
    }
    return;
  }
  SmiValue value = ParseSmiValue(text);
  if (value.kind != ValueKind::kNumber) return;
  std::string_view unit = value.unit.empty() ? std::string_view(plan.column.unit) : value.unit;
  if (name == "memory.total") {
    if (auto bytes = ToMetricUnit(Metric::kFbTotalBytes, value.number, unit.empty() ? "MiB" : unit)) {
      device.memory_bytes = static_cast<int64_t>(*bytes);
    }
  } else if (name == "clocks.max.sm" || name == "clocks.max.memory" || name == "clocks.max.mem") {
    auto mhz = ToMetricUnit(Metric::kSmClockMhz, value.number, unit);
    if (mhz) (name == "clocks.max.sm" ? device.max_sm_clock_mhz : device.max_mem_clock_mhz) = *mhz;
  } else if (name == "enforced.power.limit" || (name == "power.limit" && !header_has_enforced_limit)) {
    if (auto watts = ToMetricUnit(Metric::kPowerLimitW, value.number, unit)) device.power_limit_w = *watts;
  } else if (name == "pcie.link.gen.max") {
    device.pcie_generation = static_cast<int>(value.number);
  } else if (name == "pcie.link.width.max") {
    device.pcie_link_width = static_cast<int>(value.number);
  }
}

class QueryCsvReader {
 public:
  QueryCsvReader(const Section& section, ProfileBuilder& builder) : section_(section), builder_(builder) {}

  bool Run() {
    std::vector<std::string_view> pending;  // ,noheader rows seen before the first header
    for (std::string_view line : Lines(section_.body)) {
      if (Trim(line).empty() || IsBannerRule(line)) continue;
      if (auto columns = ParseQueryHeader(line)) {
        SetHeader(std::move(*columns));
        for (std::string_view row : pending) ReadRow(row);
        pending.clear();
        continue;
      }
      if (plans_.empty()) {
        pending.push_back(line);
      } else {
        ReadRow(line);
      }
    }
    if (!pending.empty()) builder_.Count("nvidia_smi_rows_without_header", static_cast<int64_t>(pending.size()));
    return has_header_;
  }

 private:
  void SetHeader(std::vector<CsvColumn> columns) {
    has_header_ = true;
    plans_.clear();
    series_cache_.clear();
    per_process_ = false;
    has_timestamp_ = false;
    std::set<std::string, std::less<>> names;
    for (const CsvColumn& c : columns) names.insert(c.name);
    auto has = [&](std::string_view name) { return names.find(name) != names.end(); };
    enforced_limit_ = has("enforced.power.limit");
    for (CsvColumn& column : columns) {
      ColumnPlan plan;
      plan.role = RoleOf(column.name);
      per_process_ |= plan.role == Role::kPid;
      has_timestamp_ |= plan.role == Role::kTimestamp;
      for (const MetricField& field : kMetricFields) {
        if (field.name == column.name && (field.unless.empty() || !has(field.unless))) {
          plan.metric = field.metric;
          plan.default_unit = field.default_unit;
        }
      }
      plan.series = !Contains(kNotSeries, column.name) &&
                    std::none_of(std::begin(kNotSeriesPrefixes), std::end(kNotSeriesPrefixes),
                                 [&](std::string_view prefix) { return StartsWith(column.name, prefix); });
      plan.device_field = Contains(kDeviceFields, column.name);
      plan.column = std::move(column);
      plans_.push_back(std::move(plan));
    }
  }

  // Without a timestamp column, a row of a GPU (or process) seen already starts a sample.
  TimeNs RelativeTime(const std::string& row_key) {
    if (sample_number_ < 0 || !sample_keys_.insert(row_key).second) {
      ++sample_number_;
      sample_keys_ = {row_key};
    }
    if (!noted_relative_times_) {
      builder_.SetAttribute("query_csv_times",
                            "no timestamp column: sample n placed at n seconds (the -l interval is not in the file)");
      noted_relative_times_ = true;
    }
    return sample_number_ * 1'000'000'000LL;
  }

  void ReadRow(std::string_view line) {
    std::vector<std::string_view> fields = Split(line, ',');
    if (fields.size() != plans_.size()) {
      builder_.Count("nvidia_smi_bad_rows");
      return;
    }
    GpuRef ref;
    int64_t pid = -1;
    std::string process_name;
    std::optional<TimeNs> time;
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string_view text = Trim(fields[i]);
      bool missing = IsMissingMarker(text);
      switch (plans_[i].role) {
        case Role::kTimestamp:
          time = ParseQueryTimestamp(text);
          break;
        case Role::kIndex:
          ref.index = static_cast<int32_t>(ParseInt64(text).value_or(-1));
          break;
        case Role::kUuid:
          if (!missing) ref.uuid = std::string(text);
          break;
        case Role::kPci:
          if (!missing) ref.pci_bus_id = std::string(text);
          break;
        case Role::kName:
          if (!missing) ref.name = std::string(text);
          break;
        case Role::kPid:
          pid = ParseInt64(text).value_or(-1);
          break;
        case Role::kProcessName:
          if (!missing) process_name = std::string(text);
          break;
        case Role::kHostname:
          if (!missing) builder_.profile().metadata.hostname = std::string(text);
          break;
        case Role::kDriverVersion:
          if (!missing) builder_.SetAttribute("driver_version", std::string(text));
          break;
        case Role::kValue:
          break;
      }
    }
    if (has_timestamp_ && !time) {
      builder_.Count("nvidia_smi_bad_timestamps");
      return;
    }
    if (time && !noted_wall_clock_) {
      builder_.SetAttribute("timestamps", std::string(kLocalTimeNote));
      noted_wall_clock_ = true;
    }
    if (per_process_ && pid < 0) {
      builder_.Count("nvidia_smi_bad_rows");
      return;
    }
    if (ref.identified() && !per_process_) {
      DeviceInfo& device = builder_.Device(ref);
      for (size_t i = 0; i < fields.size(); ++i) {
        if (plans_[i].role == Role::kDriverVersion && !IsMissingMarker(fields[i])) {
          device.driver_version = std::string(Trim(fields[i]));
        }
        if (plans_[i].device_field) ApplyDeviceField(plans_[i], fields[i], enforced_limit_, device);
      }
    } else if (ref.identified()) {
      builder_.Device(ref);  // the GPU a process runs on is a GPU of this node
    }
    SeriesEntity entity = builder_.GpuEntity(ref);
    entity.pid = pid;
    entity.process_name = process_name;
    std::string row_key = std::to_string(ref.index) + "|" + ref.uuid + "|" + ref.pci_bus_id + "|" + ref.name + "|" +
                          std::to_string(pid) + "|" + process_name;
    TimeNs time_ns = time ? *time : RelativeTime(row_key);
    std::vector<CachedSeries>& cache = series_cache_[row_key];
    cache.resize(plans_.size());
    for (size_t i = 0; i < fields.size(); ++i) {
      const ColumnPlan& plan = plans_[i];
      if (plan.role == Role::kValue && plan.series) AddValue(plan, fields[i], entity, time_ns, cache[i]);
    }
  }

  void AddValue(const ColumnPlan& plan, std::string_view text, const SeriesEntity& entity, TimeNs time_ns,
                CachedSeries& cached) {
    SmiValue value = ParseSmiValue(text);
    bool numeric_field = plan.metric != Metric::kOther || !plan.column.unit.empty();
    if (value.kind == ValueKind::kMissing) return;
    const std::optional<double> flag = FlagValue(plan.metric, text);  // "Yes"/"No" of remapped_rows.pending
    if (value.kind == ValueKind::kText && !flag) {
      // Text in a field that holds numbers is a bad value; other text fields (pstate,
      // compute_mode, "Enabled") are not series.
      if (numeric_field) builder_.Count("nvidia_smi_unparsable_values");
      return;
    }
    std::string_view unit = flag                        ? std::string_view()
                            : !value.unit.empty()       ? value.unit
                            : !plan.column.unit.empty() ? std::string_view(plan.column.unit)
                                                        : plan.default_unit;
    std::optional<double> converted = flag ? flag : value.number;  // kOther keeps the printed unit, in a label
    if (!flag && plan.metric != Metric::kOther) converted = ToMetricUnit(plan.metric, value.number, unit);
    if (!converted) {
      builder_.Count("nvidia_smi_unknown_units");
      return;
    }
    if (cached.series == SIZE_MAX || (plan.metric == Metric::kOther && cached.unit != unit)) {
      SeriesEntity series_entity = entity;
      if (plan.metric == Metric::kOther && !unit.empty()) series_entity.labels["unit"] = std::string(unit);
      cached.series = builder_.SeriesFor(plan.metric, plan.column.name, series_entity);
      cached.unit = std::string(unit);
    }
    builder_.AddSampleTo(cached.series, time_ns, *converted);
  }

  const Section& section_;
  ProfileBuilder& builder_;
  std::vector<ColumnPlan> plans_;
  bool has_header_ = false;
  bool per_process_ = false;
  bool has_timestamp_ = false;
  bool enforced_limit_ = false;
  int64_t sample_number_ = -1;
  std::set<std::string> sample_keys_;
  bool noted_relative_times_ = false;
  bool noted_wall_clock_ = false;
  std::unordered_map<std::string, std::vector<CachedSeries>> series_cache_;
};

}  // namespace

std::optional<std::vector<CsvColumn>> ParseQueryHeader(std::string_view line) {
  std::vector<CsvColumn> columns;
  size_t known = 0, query_like = 0;
  for (std::string_view field : Split(line, ',')) {
    field = Trim(field);
    CsvColumn column;
    size_t bracket = field.find(" [");
    if (bracket != std::string_view::npos) {
      if (field.back() != ']') return std::nullopt;
      column.unit = std::string(field.substr(bracket + 2, field.size() - bracket - 3));
      field = field.substr(0, bracket);
    }
    if (!IsFieldName(field)) return std::nullopt;
    column.name = std::string(field);
    if (Contains(kKnownFields, field)) ++known;
    if (!column.unit.empty() || field.find('.') != std::string_view::npos) ++query_like;
    columns.push_back(std::move(column));
  }
  if (columns.empty()) return std::nullopt;
  // nvidia-smi separates fields with ", "; a generic "timestamp,name,value" file does not.
  for (size_t comma = line.find(','); comma != std::string_view::npos; comma = line.find(',', comma + 1)) {
    if (comma + 1 >= line.size() || line[comma + 1] != ' ') return std::nullopt;
  }
  if (columns.size() == 1) {
    // A one-column list of field names is no header ("--help-query-gpu" style lists);
    // nvidia-smi's one-column output of a measurement carries its unit: "utilization.gpu [%]".
    return known == 1 && !columns[0].unit.empty() ? std::optional(columns) : std::nullopt;
  }
  bool first_is_query = Contains(kFirstColumns, columns[0].name) && (known >= 2 || query_like >= 1);
  bool mostly_query = known >= 1 && query_like * 2 >= columns.size();
  if (!first_is_query && !mostly_query) return std::nullopt;
  return columns;
}

bool ParseQueryCsv(const Section& section, ProfileBuilder& builder) { return QueryCsvReader(section, builder).Run(); }

}  // namespace kraken::nvidia_smi
