// Importer for the Prometheus text exposition format (0.0.4): a dcgm-exporter /metrics
// scrape, several scrapes concatenated, or any other exporter's output. Each distinct
// (metric name, label set) becomes one Series; dcgm-exporter names are mapped onto
// kraken's canonical metrics and units through dcgm_metric_catalog.
//
// Timestamps: a sample with a trailing timestamp (ms) gets it, in ns since the epoch; a
// sample without one gets time 0 and keeps its place in file order, and
// metadata.attributes["timestamps"] says which case the file is: "ms", "none" or
// "mixed". Positions are never turned into made-up times.
//
// Missing values are skipped and counted, never stored as numbers: DCGM's blank
// sentinels in DCGM_*/dcgm_* metrics (prometheus_dcgm_blank_values; other exporters'
// huge integers are real values) and NaN/+-Inf (prometheus_non_finite_values). A series
// left with no value at all is dropped (prometheus_series_without_values).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/common/dcgm_entity.h"
#include "model/dcgm_metric_catalog.h"
#include "importers/common/exposition_parser.h"
#include "importers/common/line_reader.h"

namespace kraken {
namespace {

using prometheus::ExpositionLine;
using prometheus::LineKind;

constexpr std::string_view kFormatName = "prometheus-text";
constexpr int64_t kNsPerMs = 1'000'000;

// The complete lines of a sniffer's head: when the head was cut at kSniffBytes its last
// line may be partial and is left out (unless it is the only one).
std::vector<std::string_view> HeadLines(std::string_view head) {
  std::vector<std::string_view> lines = Split(head, '\n');
  if (head.size() >= kSniffBytes && lines.size() > 1) lines.pop_back();
  return lines;
}

SniffResult SniffExposition(std::string_view head) {
  size_t declarations = 0, samples = 0, dcgm_samples = 0, invalid = 0;
  ExpositionLine line;
  std::vector<std::string_view> lines = HeadLines(head);
  for (std::string_view text : lines) {
    prometheus::ParseExpositionLine(text, &line);
    switch (line.kind) {
      case LineKind::kHelp:
      case LineKind::kType: ++declarations; break;
      case LineKind::kSample:
        ++samples;
        if (prometheus::IsDcgmMetricName(line.metric_name)) ++dcgm_samples;
        break;
      case LineKind::kInvalid: ++invalid; break;
      case LineKind::kBlank:
      case LineKind::kComment: break;
    }
  }
  // One sample line longer than the head: judge it by how it starts.
  if (lines.size() == 1 && head.size() >= kSniffBytes && line.kind == LineKind::kInvalid) {
    size_t brace = head.find('{');
    if (brace != std::string_view::npos && prometheus::IsMetricName(head.substr(0, brace)) &&
        prometheus::IsDcgmMetricName(head)) {
      return SniffResult::kYes;
    }
  }
  size_t good = declarations + samples;
  if (good == 0 || invalid * 4 > good) return SniffResult::kNo;
  if (declarations > 0 || dcgm_samples > 0) return SniffResult::kYes;
  return invalid == 0 ? SniffResult::kMaybe : SniffResult::kNo;
}

// Turns parsed lines into series, declarations and devices of one profile.
class ExpositionBuilder {
 public:
  explicit ExpositionBuilder(Profile* profile) : profile_(profile) {}

  void AddLine(std::string_view text, size_t line_number, bool overlong) {
    if (overlong) {
      NoteInvalid(line_number, "line longer than " + std::to_string(prometheus::LineReader::kMaxLineBytes) +
                                   " bytes");
      return;
    }
    prometheus::ParseExpositionLine(text, &line_);
    switch (line_.kind) {
      case LineKind::kHelp:
      case LineKind::kType: AddDeclaration(); break;
      case LineKind::kSample: AddSample(); break;
      case LineKind::kInvalid: NoteInvalid(line_number, line_.error); break;
      case LineKind::kBlank:
      case LineKind::kComment: break;
    }
  }

  Status Finish() {
    if (sample_lines_ == 0 && declaration_lines_ == 0) {
      if (first_invalid_line_ > 0) return InvalidInput("line " + std::to_string(first_invalid_line_) + ": " +
                                                       first_error_ + " (no line of the file parses)");
      return InvalidInput("line 1: no metric samples and no # HELP/# TYPE lines");
    }
    DropEmptySeries();
    for (MetricDeclaration& declaration : profile_->metric_declarations)
      if (declaration.type.empty()) declaration.type = "untyped";  // HELP without TYPE
    profile_->devices = devices_.TakeDevices();
    if (hostnames_.size() == 1) profile_->metadata.hostname = *hostnames_.begin();
    if (hostnames_.size() > 1) {
      std::string joined;
      for (const std::string& host : hostnames_) joined += (joined.empty() ? "" : ",") + host;
      profile_->metadata.attributes["hostnames"] = joined;
    }
    if (with_timestamp_ + without_timestamp_ > 0) {
      profile_->metadata.attributes["timestamps"] =
          without_timestamp_ == 0 ? "ms" : (with_timestamp_ == 0 ? "none" : "mixed");
    }
    if (any_dcgm_) profile_->metadata.accelerator_vendor = Vendor::kNvidia;
    auto& counters = profile_->import_counters;
    counters["prometheus_samples"] = stored_samples_;
    for (const auto& [name, value] : skipped_)
      if (value > 0) counters[name] = value;
    return Status::Ok();
  }

 private:
  struct SeriesState {
    double scale = 1;
    int device = -1;
    bool total_memory = false;  // whole-GPU DCGM_FI_DEV_FB_TOTAL: also the device's memory
  };

  void NoteInvalid(size_t line_number, const std::string& error) {
    ++skipped_["prometheus_unparsable_lines"];
    if (first_invalid_line_ == 0) {
      first_invalid_line_ = line_number;
      first_error_ = error;
    }
  }

  void AddDeclaration() {
    ++declaration_lines_;
    auto [it, inserted] = declaration_by_name_.emplace(line_.metric_name, profile_->metric_declarations.size());
    if (inserted) {
      MetricDeclaration& declaration = profile_->metric_declarations.emplace_back();
      declaration.source_name = line_.metric_name;
      if (const auto* entry = prometheus::FindDcgmMetric(line_.metric_name)) {
        declaration.metric = entry->metric;
        if (entry->legacy_name == line_.metric_name) declaration.current_name = std::string(entry->field);
      }
    }
    // Concatenated scrapes repeat HELP and TYPE: the first of each is kept.
    MetricDeclaration& declaration = profile_->metric_declarations[it->second];
    if (line_.kind == LineKind::kHelp && !help_seen_.contains(it->second)) {
      help_seen_.insert(it->second);
      declaration.help = line_.text;
    }
    if (line_.kind == LineKind::kType && declaration.type.empty()) declaration.type = line_.text;
  }

  // Series identity: the name and the label set, independent of label order.
  std::string SeriesKey() const {
    std::vector<const prometheus::Label*> sorted;
    sorted.reserve(line_.labels.size());
    for (const auto& label : line_.labels) sorted.push_back(&label);
    std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
    std::string key = line_.metric_name;
    for (const auto* label : sorted) {
      key += '\x1f';
      key += label->name;
      key += '\x1e';
      key += label->value;
    }
    return key;
  }

  size_t FindOrAddSeries() {
    auto [it, inserted] = series_by_key_.emplace(SeriesKey(), profile_->series.size());
    if (!inserted) return it->second;
    Series& series = profile_->series.emplace_back();
    SeriesState& state = states_.emplace_back();
    series.source_name = line_.metric_name;
    series.entity = prometheus::EntityFromLabels(line_.labels);
    if (!series.entity.hostname.empty()) hostnames_.insert(series.entity.hostname);
    if (prometheus::IsDcgmMetricName(line_.metric_name)) {
      any_dcgm_ = true;
      state.device = devices_.Observe(series.entity);
      if (const auto* entry = prometheus::FindDcgmMetric(line_.metric_name)) {
        series.metric = entry->metric;
        state.scale = entry->scale;
        state.total_memory = entry->metric == Metric::kFbTotalBytes && series.entity.gpu_instance_id < 0;
      }
    }
    return it->second;
  }

  void AddSample() {
    ++sample_lines_;
    size_t index = FindOrAddSeries();
    const bool dcgm = prometheus::IsDcgmMetricName(line_.metric_name);
    if (!std::isfinite(line_.value)) {
      ++skipped_["prometheus_non_finite_values"];
      return;
    }
    if (dcgm && prometheus::IsDcgmBlank(line_.value_text, line_.value)) {
      ++skipped_["prometheus_dcgm_blank_values"];
      return;
    }
    Sample sample;
    if (line_.timestamp_ms) {
      int64_t ms = *line_.timestamp_ms;
      if (ms > std::numeric_limits<int64_t>::max() / kNsPerMs || ms < std::numeric_limits<int64_t>::min() / kNsPerMs) {
        ++skipped_["prometheus_timestamps_out_of_range"];
        return;
      }
      sample.time_ns = ms * kNsPerMs;
      ++with_timestamp_;
    } else {
      ++without_timestamp_;
    }
    const SeriesState& state = states_[index];
    sample.value = line_.value * state.scale;
    if (state.total_memory) devices_.SetMemoryBytes(state.device, sample.value);
    profile_->series[index].samples.push_back(sample);
    ++stored_samples_;
  }

  // A series whose every value was a blank or non-finite carries no measurement.
  void DropEmptySeries() {
    auto& series = profile_->series;
    size_t before = series.size();
    series.erase(std::remove_if(series.begin(), series.end(), [](const Series& s) { return s.samples.empty(); }),
                 series.end());
    skipped_["prometheus_series_without_values"] += static_cast<int64_t>(before - series.size());
  }

  Profile* profile_;
  ExpositionLine line_;
  std::unordered_map<std::string, size_t> series_by_key_;
  std::vector<SeriesState> states_;  // parallel to profile_->series until DropEmptySeries
  std::unordered_map<std::string, size_t> declaration_by_name_;
  std::set<size_t> help_seen_;
  prometheus::DeviceCollector devices_;
  std::set<std::string> hostnames_;
  std::map<std::string, int64_t> skipped_;
  bool any_dcgm_ = false;
  int64_t sample_lines_ = 0, declaration_lines_ = 0, stored_samples_ = 0;
  int64_t with_timestamp_ = 0, without_timestamp_ = 0;
  size_t first_invalid_line_ = 0;
  std::string first_error_;
};

class PrometheusTextImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        kFormatName, "Prometheus text exposition 0.0.4 (dcgm-exporter /metrics; scrapes may be concatenated)",
        "curl :9400/metrics > file (.prom, .txt), plain or .gz"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override { return SniffExposition(head); }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    Profile& profile = sink.NewProfile(input, kFormatName);
    ExpositionBuilder builder(&profile);
    prometheus::LineReader reader(*input.stream, input.progress);
    std::string_view text;
    while (true) {
      Result<bool> more = reader.Next(&text);
      if (!more.ok()) {
        sink.profiles().pop_back();
        return more.status();
      }
      if (!*more) break;
      builder.AddLine(text, reader.line_number(), reader.overlong());
    }
    Status status = builder.Finish();
    if (!status.ok()) sink.profiles().pop_back();
    return status;
  }
};

}  // namespace

std::unique_ptr<Importer> CreatePrometheusTextImporter() { return std::make_unique<PrometheusTextImporter>(); }

}  // namespace kraken
