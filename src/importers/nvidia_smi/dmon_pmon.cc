#include "importers/nvidia_smi/dmon_pmon.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <span>

#include "base/text.h"
#include "importers/nvidia_smi/smi_values.h"

namespace kraken::nvidia_smi {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t kNsPerDay = 86'400 * kNsPerSecond;

struct MonitorColumn {
  std::string_view name;
  Metric metric;
  std::string_view default_unit;  // used when the units line is missing
};

// dmon's sm/mem are NVML's utilization.gpu/.memory; pclk is the graphics clock, which the
// SMs run at. rxpci/txpci are printed in MB/s (see the units line).
constexpr MonitorColumn kDmonColumns[] = {
    {"pwr", Metric::kPowerW, "W"},
    {"gtemp", Metric::kGpuTempC, "C"},
    {"temp", Metric::kGpuTempC, "C"},
    {"mtemp", Metric::kMemTempC, "C"},
    {"sm", Metric::kGpuUtilPct, "%"},
    {"mem", Metric::kMemCopyUtilPct, "%"},
    {"enc", Metric::kEncoderUtilPct, "%"},
    {"dec", Metric::kDecoderUtilPct, "%"},
    {"mclk", Metric::kMemClockMhz, "MHz"},
    {"pclk", Metric::kSmClockMhz, "MHz"},
    {"fb", Metric::kFbUsedBytes, "MB"},
    {"rxpci", Metric::kPcieRxBytesPerS, "MB/s"},
    {"txpci", Metric::kPcieTxBytesPerS, "MB/s"},
};

constexpr MonitorColumn kPmonColumns[] = {
    {"sm", Metric::kProcessSmUtilPct, "%"},
    {"mem", Metric::kProcessMemUtilPct, "%"},
    {"fb", Metric::kProcessUsedMemoryBytes, "MB"},
};

// Columns besides gpu that make a '#' line a dmon/pmon header.
constexpr std::string_view kKnownColumns[] = {"pwr",   "gtemp", "temp", "mtemp",   "sm",    "mem",   "enc",   "dec",
                                              "jpg",   "ofa",   "mclk", "pclk",    "fb",    "bar1",  "ccpm",  "rxpci",
                                              "txpci", "pid",   "type", "command", "pviol", "tviol", "sbecc", "dbecc"};

std::vector<std::string_view> HashLineTokens(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == '#') ++i;
  return SplitWhitespace(line.substr(i));
}

class MonitorReader {
 public:
  MonitorReader(const Section& section, ProfileBuilder& builder) : section_(section), builder_(builder) {
    if (auto d = CommandOption(section.command, "-d")) interval_s_ = ParseDouble(*d);
  }

  bool Run() {
    bool saw_header = false;
    for (std::string_view line : Lines(section_.body)) {
      if (Trim(line).empty() || IsBannerRule(line)) continue;
      if (StartsWith(Trim(line), "#")) {
        if (auto names = ParseMonitorHeader(Trim(line))) {
          SetHeader(std::move(*names));
          saw_header = true;
        } else if (!names_.empty()) {
          std::vector<std::string_view> units = HashLineTokens(Trim(line));
          if (units.size() == names_.size()) units_.assign(units.begin(), units.end());
        }
        continue;
      }
      if (names_.empty()) {
        builder_.Count("nvidia_smi_rows_without_header");
        continue;
      }
      ReadRow(line);
    }
    if (used_relative_clock_) {
      builder_.RelativeClock(ClockKey()) = origin_ns_ + (sample_number_ + 1) * IntervalNs();
      std::string note = HasValidInterval()
                             ? "no -o T/DT: sample n at n x " + FormatSeconds(*interval_s_) + " s (-d of the command)"
                             : "no -o T/DT: sample n at n x 1 s (assumed: the default interval; -d changes it)";
      builder_.SetAttribute(is_pmon_ ? "pmon_times" : "dmon_times", note);
    }
    return saw_header;
  }

 private:
  static std::string FormatSeconds(double s) {
    std::string text = std::to_string(s);
    while (!text.empty() && text.back() == '0') text.pop_back();
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  }
  // dmon accepts 1..10 s; anything outside a day is not an interval but a typo.
  bool HasValidInterval() const { return interval_s_ && *interval_s_ > 0 && *interval_s_ <= 86400; }
  int64_t IntervalNs() const { return static_cast<int64_t>((HasValidInterval() ? *interval_s_ : 1.0) * kNsPerSecond); }
  std::string ClockKey() const { return builder_.phase() + (is_pmon_ ? "|pmon" : "|dmon"); }

  void SetHeader(std::vector<std::string> names) {
    names_ = std::move(names);
    units_.clear();
    is_pmon_ = std::find(names_.begin(), names_.end(), "pid") != names_.end();
  }

  int Column(std::string_view name) const {
    auto it = std::find(names_.begin(), names_.end(), name);
    return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
  }

  std::optional<TimeNs> RowTime(const std::vector<std::string_view>& tokens, const std::string& sample_key) {
    int date = Column("Date"), time = Column("Time");
    TimeNs base = 0;
    if (date >= 0) {
      auto day = ParseMonitorDate(tokens[static_cast<size_t>(date)]);
      if (!day) return std::nullopt;
      base = *day;
      builder_.SetAttribute("timestamps", std::string(kLocalTimeNote));
    }
    if (time >= 0) {
      auto of_day = ParseTimeOfDay(tokens[static_cast<size_t>(time)]);
      if (!of_day) return std::nullopt;
      if (date < 0) {
        // -o T alone: a clock without a date; past midnight it goes back, so count days.
        if (last_time_of_day_ && *of_day + kNsPerDay / 2 < *last_time_of_day_) days_ += 1;
        last_time_of_day_ = *of_day;
        builder_.SetAttribute(is_pmon_ ? "pmon_times" : "dmon_times", "-o T: time of day, no date");
        builder_.NoteTimeOfDay();
      }
      return base + days_ * kNsPerDay + *of_day;
    }
    if (!used_relative_clock_) {
      used_relative_clock_ = true;
      origin_ns_ = builder_.RelativeClock(ClockKey());
    }
    if (sample_number_ < 0 || !sample_keys_.insert(sample_key).second) {
      ++sample_number_;
      sample_keys_ = {sample_key};
    }
    return base + origin_ns_ + sample_number_ * IntervalNs();
  }

  void ReadRow(std::string_view line) {
    std::vector<std::string_view> tokens = SplitWhitespace(line);
    int command = Column("command");
    // pmon's command (the last column) may hold spaces: the extra words are its own.
    if (command == static_cast<int>(names_.size()) - 1 && tokens.size() > names_.size()) {
      std::string_view first = tokens[names_.size() - 1];
      std::string_view last = tokens.back();
      tokens.resize(names_.size());
      tokens.back() = std::string_view(first.data(), static_cast<size_t>(last.data() + last.size() - first.data()));
    }
    int gpu_column = Column("gpu");
    auto gpu = tokens.size() == names_.size() && gpu_column >= 0 ? ParseInt64(tokens[static_cast<size_t>(gpu_column)])
                                                                 : std::nullopt;
    if (!gpu) {
      builder_.Count("nvidia_smi_bad_rows");
      return;
    }
    GpuRef ref;
    ref.index = static_cast<int32_t>(*gpu);
    SeriesEntity entity = builder_.GpuEntity(ref);
    int pid_column = Column("pid");
    std::string_view pid_text = pid_column >= 0 ? tokens[static_cast<size_t>(pid_column)] : std::string_view();
    if (is_pmon_) {
      if (!IsMissingMarker(pid_text)) {
        auto pid = ParseInt64(pid_text);
        if (!pid) {
          builder_.Count("nvidia_smi_bad_rows");
          return;
        }
        entity.pid = *pid;
      }
      if (command >= 0 && !IsMissingMarker(tokens[static_cast<size_t>(command)])) {
        entity.process_name = std::string(tokens[static_cast<size_t>(command)]);
      }
    }
    auto time = RowTime(tokens, std::to_string(*gpu) + "|" + std::string(pid_text));
    if (!time) {
      builder_.Count("nvidia_smi_bad_timestamps");
      return;
    }
    if (is_pmon_ && entity.pid < 0) return;  // "no process on this GPU" row: nothing measured
    for (size_t i = 0; i < names_.size(); ++i) AddValue(i, tokens[i], entity, *time);
  }

  void AddValue(size_t column, std::string_view text, const SeriesEntity& entity, TimeNs time) {
    const std::string& name = names_[column];
    if (name == "gpu" || name == "pid" || name == "type" || name == "command" || name == "Date" || name == "Time") {
      return;
    }
    if (IsMissingMarker(text)) return;
    auto number = ParseDouble(text);
    if (!number) {
      builder_.Count("nvidia_smi_unparsable_values");
      return;
    }
    Metric metric = Metric::kOther;
    std::string_view unit = column < units_.size() ? std::string_view(units_[column]) : std::string_view();
    for (const MonitorColumn& known :
         is_pmon_ ? std::span<const MonitorColumn>(kPmonColumns) : std::span<const MonitorColumn>(kDmonColumns)) {
      if (known.name != name) continue;
      metric = known.metric;
      if (unit.empty()) unit = known.default_unit;
    }
    if (metric == Metric::kOther) {
      SeriesEntity other = entity;
      if (!unit.empty()) other.labels["unit"] = std::string(unit);
      builder_.AddSample(metric, name, other, time, *number);
      return;
    }
    auto converted = ToMetricUnit(metric, *number, unit);
    if (!converted) {
      builder_.Count("nvidia_smi_unknown_units");
      return;
    }
    builder_.AddSample(metric, name, entity, time, *converted);
  }

  const Section& section_;
  ProfileBuilder& builder_;
  std::optional<double> interval_s_;
  std::vector<std::string> names_;
  std::vector<std::string> units_;
  bool is_pmon_ = false;
  bool used_relative_clock_ = false;
  TimeNs origin_ns_ = 0;
  int64_t sample_number_ = -1;
  std::set<std::string> sample_keys_;
  std::optional<TimeNs> last_time_of_day_;
  int64_t days_ = 0;
};

}  // namespace

std::optional<std::vector<std::string>> ParseMonitorHeader(std::string_view line) {
  if (!StartsWith(line, "#")) return std::nullopt;
  std::vector<std::string_view> tokens = HashLineTokens(line);
  size_t gpu = 0;
  while (gpu < tokens.size() && gpu < 2 && (tokens[gpu] == "Date" || tokens[gpu] == "Time")) ++gpu;
  if (gpu >= tokens.size() || tokens[gpu] != "gpu") return std::nullopt;
  bool known = std::any_of(tokens.begin() + static_cast<std::ptrdiff_t>(gpu) + 1, tokens.end(), [](std::string_view t) {
    return std::find(std::begin(kKnownColumns), std::end(kKnownColumns), t) != std::end(kKnownColumns);
  });
  if (!known) return std::nullopt;
  return std::vector<std::string>(tokens.begin(), tokens.end());
}

bool ParseMonitor(const Section& section, ProfileBuilder& builder) { return MonitorReader(section, builder).Run(); }

}  // namespace kraken::nvidia_smi
