#include "config/design_config.h"

#include <limits>
#include <map>

#include "base/duration.h"
#include "base/text.h"

namespace kraken::config {
namespace {

constexpr std::string_view kRoot = "profiler.";
constexpr int64_t kMsNs = 1'000'000;

// What one design key gives: kraken settings, and the parts of it (list items, values)
// kraken does not act on, each (what, why).
struct DesignOut {
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::pair<std::string, std::string>> not_acted_on;
};

struct DesignContext {
  int64_t interval_ns = 100'000'000;  // the file's sampling interval (buffer_size counts passes)
};

using Convert = Status (*)(const FileSetting& s, const DesignContext& context, DesignOut& out);

struct DesignKey {
  DesignKeyInfo info;
  Convert convert = nullptr;  // null: not acted on, info.note says why
};

std::string Quoted(std::string_view text) {
  std::string out = "'";
  out.append(text).append("'");
  return out;
}

Result<int64_t> WholeNumber(const FileSetting& s, int64_t min, std::string_view what) {
  std::optional<int64_t> n = s.is_list ? std::nullopt : ParseInt64(Trim(s.text));
  if (!n || *n < min)
    return InvalidInput(Quoted(s.text) + " is not a whole number of " + std::string(what) +
                        (min > 0 ? " (at least " + std::to_string(min) + ")" : ""));
  return *n;
}

Status IntervalMs(const FileSetting& s, const DesignContext&, DesignOut& out) {
  KRAKEN_ASSIGN_OR_RETURN(int64_t ms, WholeNumber(s, 1, "milliseconds"));
  out.settings.push_back({"sampling.interval", std::to_string(ms) + "ms"});
  return Status::Ok();
}

// The design keeps this many samples in memory; kraken's ring holds a span of passes.
Status BufferSize(const FileSetting& s, const DesignContext& context, DesignOut& out) {
  KRAKEN_ASSIGN_OR_RETURN(int64_t passes, WholeNumber(s, 1, "samples"));
  if (passes > std::numeric_limits<int64_t>::max() / context.interval_ns)
    return InvalidInput(Quoted(s.text) + " samples is too many");
  out.settings.push_back({"agent.ring", FormatDurationNs(passes * context.interval_ns)});
  return Status::Ok();
}

Status RetentionDays(const FileSetting& s, const DesignContext&, DesignOut& out) {
  KRAKEN_ASSIGN_OR_RETURN(int64_t days, WholeNumber(s, 0, "days"));
  out.settings.push_back({"store.retention", days == 0 ? "0" : std::to_string(days) + "d"});
  return Status::Ok();
}

Result<bool> BoolOf(const FileSetting& s) {
  std::string v = s.is_list ? "" : ToLower(Trim(s.text));
  if (v == "true") return true;
  if (v == "false") return false;
  return InvalidInput(Quoted(s.text) + " is not true or false");
}

Status StorageBackend(const FileSetting& s, const DesignContext&, DesignOut& out) {
  std::string backend = ToLower(Trim(s.text));
  if (s.is_list || backend != "sqlite")
    out.not_acted_on.push_back(
        {Quoted(s.text), "kraken's store is one SQLite database (store.path), which is used instead"});
  return Status::Ok();
}

Status StorageCompression(const FileSetting& s, const DesignContext&, DesignOut& out) {
  KRAKEN_ASSIGN_OR_RETURN(bool on, BoolOf(s));
  if (!on)
    out.not_acted_on.push_back(
        {"false", "kraken's store always encodes samples compactly (delta and XOR coding, docs/store.md)"});
  return Status::Ok();
}

// A metric list of the design (`enabled: [utilization, power]`) and the kraken metric
// groups its names switch. `design` names are the design's own vocabulary: a group none of
// them lists is turned off. `extra` are kraken's group names, accepted there too: listed
// turns them on, unlisted leaves them. `unmeasured` names are the design's, without a
// group in kraken.
struct GroupName {
  std::string_view name;
  std::string_view key;  // kraken key, or the reason for an unmeasured name
};
struct MetricCategory {
  std::vector<GroupName> design;
  std::vector<GroupName> extra;
  std::vector<GroupName> unmeasured;
};

const MetricCategory kGpuMetrics = {
    {{"utilization", "metrics.utilization"},
     {"temperature", "metrics.temperature"},
     {"power", "metrics.power"},
     {"clocks", "metrics.clocks"}},
    {{"profiling", "metrics.profiling"}, {"errors", "metrics.errors"}, {"processes", "metrics.processes"}},
    {}};
const MetricCategory kMemoryMetrics = {
    {{"allocated", "metrics.memory"}, {"reserved", "metrics.memory"}},
    {{"memory", "metrics.memory"}},
    {{"bandwidth", "kraken has no group of its own for it: memory-copy utilization comes with metrics.utilization, "
                   "DRAM activity with metrics.profiling"},
     {"fragmentation", "kraken does not measure allocator fragmentation"}}};
const MetricCategory kNetworkMetrics = {{{"pcie", "metrics.pcie"}, {"nvlink", "metrics.nvlink"}}, {}, {}};

const GroupName* FindName(const std::vector<GroupName>& names, std::string_view name) {
  for (const GroupName& n : names)
    if (n.name == name) return &n;
  return nullptr;
}

std::string KnownNames(const MetricCategory& category) {
  std::string out;
  for (const auto* list : {&category.design, &category.extra, &category.unmeasured})
    for (const GroupName& n : *list) out += (out.empty() ? "" : ", ") + std::string(n.name);
  return out;
}

Status MetricList(const FileSetting& s, const MetricCategory& category, DesignOut& out) {
  std::map<std::string_view, bool> values;  // kraken key -> on
  bool all = false;
  if (!s.is_list) {  // `enabled: true|false`: the whole category
    KRAKEN_ASSIGN_OR_RETURN(all, BoolOf(s));
  }
  for (const GroupName& n : category.design) values[n.key] = all;
  for (const std::string& raw : s.items) {
    std::string name = ToLower(Trim(raw));
    if (const GroupName* n = FindName(category.design, name)) {
      values[n->key] = true;
    } else if (const GroupName* extra = FindName(category.extra, name)) {
      values[extra->key] = true;
    } else if (const GroupName* unmeasured = FindName(category.unmeasured, name)) {
      out.not_acted_on.push_back({Quoted(raw), std::string(unmeasured->key)});
    } else {
      out.not_acted_on.push_back({Quoted(raw), "not a metric kraken knows here (" + KnownNames(category) + ")"});
    }
  }
  for (const auto& [key, on] : values) out.settings.push_back({std::string(key), on ? "true" : "false"});
  return Status::Ok();
}

Status GpuMetrics(const FileSetting& s, const DesignContext&, DesignOut& out) { return MetricList(s, kGpuMetrics, out); }
Status MemoryMetrics(const FileSetting& s, const DesignContext&, DesignOut& out) {
  return MetricList(s, kMemoryMetrics, out);
}
Status NetworkMetrics(const FileSetting& s, const DesignContext&, DesignOut& out) {
  return MetricList(s, kNetworkMetrics, out);
}

constexpr std::string_view kAnalysisOnRequest =
    "kraken's analyses run when asked (kraken disagg, analyze, colocate) with their own calibrated model";

// The design's keys, in the order of its documented file.
const std::vector<DesignKey> kDesignKeys = {
    {{"sampling.interval_ms", "sampling.interval", "milliseconds: 100 is sampling.interval 100ms"}, IntervalMs},
    {{"sampling.buffer_size", "agent.ring",
      "samples kept in memory: buffer_size passes of the sampling interval (10000 x 100ms = agent.ring 16m40s)"},
     BufferSize},
    {{"metrics.gpu.enabled", "metrics.utilization, metrics.temperature, metrics.power, metrics.clocks",
      "the listed groups on, the unlisted of these four off; kraken's profiling, errors, processes may be listed too"},
     GpuMetrics},
    {{"metrics.gpu.detailed_kernels", "",
      "per-kernel timing comes from `kraken profile --kernels` (CUPTI) or an imported trace, not from the sampler"}},
    {{"metrics.memory.enabled", "metrics.memory",
      "allocated or reserved listed: framebuffer used/reserved on; bandwidth and fragmentation are warned about"},
     MemoryMetrics},
    {{"metrics.memory.track_allocations", "",
      "the sampler reads framebuffer totals, not individual allocations"}},
    {{"metrics.network.enabled", "metrics.pcie, metrics.nvlink", "the listed links on, the unlisted off"},
     NetworkMetrics},
    {{"metrics.network.measure_latency", "", "kraken measures link throughput, not transfer latency"}},
    {{"analysis.disaggregation.enabled", "", kAnalysisOnRequest}},
    {{"analysis.disaggregation.algorithms", "", kAnalysisOnRequest}},
    {{"analysis.disaggregation.thresholds.compute_memory_ratio", "", kAnalysisOnRequest}},
    {{"analysis.disaggregation.thresholds.network_sensitivity", "", kAnalysisOnRequest}},
    {{"analysis.disaggregation.thresholds.temporal_variance", "", kAnalysisOnRequest}},
    {{"analysis.interference.enabled", "", kAnalysisOnRequest}},
    {{"analysis.interference.prediction_model", "", kAnalysisOnRequest}},
    {{"storage.backend", "store.path",
      "sqlite is kraken's store (no warning); timeseries, postgresql and others are warned about"},
     StorageBackend},
    {{"storage.retention_days", "store.retention", "days: 30 is store.retention 30d; 0 keeps everything"},
     RetentionDays},
    {{"storage.compression", "(always on)", "true: what kraken's store does anyway; false is warned about"},
     StorageCompression},
    {{"output.formats", "",
      "kraken writes each format when asked (kraken export --format, kraken report); the agent writes no files"}},
    {{"output.destination", "", "commands take --out; the agent keeps its samples in the store (store.path)"}},
    {{"output.realtime_streaming", "",
      "the agent always serves live /metrics for Prometheus (agent.listen); there is no other stream"}},
};

const DesignKey* FindDesignKey(std::string_view key) {
  for (const DesignKey& k : kDesignKeys)
    if (k.info.key == key) return &k;
  return nullptr;
}

// The file's own sampling interval (design or kraken spelling), else kraken's default.
DesignContext ContextOf(const std::vector<FileSetting>& settings) {
  DesignContext context;
  for (const FileSetting& s : settings) {
    if (s.is_list) continue;
    if (s.key == "profiler.sampling.interval_ms") {
      if (auto ms = ParseInt64(Trim(s.text)); ms && *ms > 0 && *ms < std::numeric_limits<int64_t>::max() / kMsNs)
        context.interval_ns = *ms * kMsNs;
    } else if (s.key == "sampling.interval") {
      if (auto ns = ParseDurationNs(Trim(s.text)); ns && *ns > 0) context.interval_ns = *ns;
    }
  }
  return context;
}

}  // namespace

bool IsDesignKey(std::string_view key) { return StartsWith(key, kRoot); }

Result<DesignMapping> MapDesignSettings(const std::string& path, const std::vector<FileSetting>& settings) {
  DesignMapping mapping;
  const DesignContext context = ContextOf(settings);
  for (const FileSetting& s : settings) {
    if (!IsDesignKey(s.key)) continue;
    const std::string where = path + ":" + std::to_string(s.line) + ": ";
    const DesignKey* key = FindDesignKey(std::string_view(s.key).substr(kRoot.size()));
    if (key == nullptr)
      return InvalidInput(where + "key '" + s.key +
                          "' is not a key of the KRAKEN design's config (docs/compat.md lists them)");
    if (key->convert == nullptr) {
      mapping.warnings.push_back(where + s.key + ": not acted on: " + std::string(key->info.note));
      continue;
    }
    DesignOut out;
    Status status = key->convert(s, context, out);
    if (!status.ok()) return InvalidInput(where + s.key + ": " + status.message());
    for (auto& [kraken_key, text] : out.settings)
      mapping.settings.push_back({std::move(kraken_key), std::move(text), s.key, s.line});
    for (const auto& [what, why] : out.not_acted_on)
      mapping.warnings.push_back(where + s.key + ": " + what + " not acted on: " + why);
  }
  return mapping;
}

const std::vector<DesignKeyInfo>& DesignKeys() {
  static const std::vector<DesignKeyInfo> keys = [] {
    std::vector<DesignKeyInfo> out;
    for (const DesignKey& key : kDesignKeys) out.push_back(key.info);
    return out;
  }();
  return keys;
}

}  // namespace kraken::config
