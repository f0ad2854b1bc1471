#include "base/json_writer.h"
#include "model/metrics.h"
#include "report/analysis_output.h"
#include "report/insights_output.h"
#include "report/profile_summary.h"
#include "report/trace_insights_output.h"

namespace kraken {
namespace {

double Us(TimeNs ns) { return static_cast<double>(ns) / 1000.0; }

void WriteOptional(JsonWriter& json, std::string_view key, const std::optional<double>& value) {
  json.Key(key);
  value ? json.Number(*value) : json.Null();
}

void WriteTimeline(JsonWriter& json, const TimelineBreakdown& t) {
  json.BeginObject()
      .Field("start_us", Us(t.window.start_ns))
      .Field("total_us", Us(t.total_ns))
      .Field("busy_us", Us(t.busy_ns))
      .Field("idle_us", Us(t.idle_ns))
      .Field("idle_pct", t.idle_pct())
      .Field("compute_us", Us(t.compute_ns))
      .Field("comm_us", Us(t.comm_ns))
      .Field("exposed_comm_us", Us(t.exposed_comm_ns))
      .Field("memcpy_us", Us(t.memcpy_ns))
      .Field("exposed_memcpy_us", Us(t.exposed_memcpy_ns))
      .Field("gpu_events", t.gpu_events)
      .EndObject();
}

void WriteDistributionUs(JsonWriter& json, const Distribution& d) {
  json.BeginObject()
      .Field("count", d.count)
      .Field("mean_us", d.mean / 1000)
      .Field("p50_us", d.p50 / 1000)
      .Field("p90_us", d.p90 / 1000)
      .Field("p99_us", d.p99 / 1000)
      .Field("min_us", d.min / 1000)
      .Field("max_us", d.max / 1000)
      .Field("cv_pct", 100 * d.cv())
      .EndObject();
}

void WriteClassification(JsonWriter& json, const KernelClassification& c) {
  json.Field("bound", BoundnessName(c.bound))
      .Field("side", BoundnessName(c.side))
      .Field("basis", ClassificationBasisName(c.basis));
  WriteOptional(json, "arithmetic_intensity", c.arithmetic_intensity);
  WriteOptional(json, "ridge_point", c.ridge_point);
  WriteOptional(json, "achieved_tflops", c.achieved_flops_per_s ? std::optional(*c.achieved_flops_per_s / 1e12)
                                                                : std::nullopt);
  WriteOptional(json, "achieved_dram_gbps",
                c.achieved_dram_bytes_per_s ? std::optional(*c.achieved_dram_bytes_per_s / 1e9) : std::nullopt);
  WriteOptional(json, "compute_pct_of_peak", c.compute_pct_of_peak);
  WriteOptional(json, "memory_pct_of_peak", c.memory_pct_of_peak);
  WriteOptional(json, "peak_tflops", c.peak_flops_per_s ? std::optional(*c.peak_flops_per_s / 1e12) : std::nullopt);
  WriteOptional(json, "peak_dram_gbps",
                c.peak_dram_bytes_per_s ? std::optional(*c.peak_dram_bytes_per_s / 1e9) : std::nullopt);
  json.Field("precision", c.precision).Field("name_rule", c.name_rule).Field("reason", c.reason);
}

void WriteKernelGroups(JsonWriter& json, const std::vector<KernelGroupStats>& groups, size_t top_n) {
  json.BeginArray();
  for (size_t i = 0; i < groups.size() && i < top_n; ++i) {
    const KernelGroupStats& g = groups[i];
    json.BeginObject()
        .Field("name", g.name)
        .Field("count", g.count)
        .Field("total_us", Us(g.total_ns))
        .Field("mean_us", g.mean_ns / 1000)
        .Field("min_us", Us(g.min_ns))
        .Field("max_us", Us(g.max_ns))
        .Field("pct_of_kernel_time", g.pct_of_kernel_time)
        .Field("tensor_cores", g.uses_tensor_cores);
    WriteClassification(json, g.classification);
    json.EndObject();
  }
  json.EndArray();
}

void WriteMix(JsonWriter& json, const BoundMix& m) {
  json.BeginObject()
      .Field("compute_pct", m.Pct(m.compute_ns))
      .Field("memory_pct", m.Pct(m.memory_ns))
      .Field("latency_pct", m.Pct(m.latency_ns))
      .Field("mixed_pct", m.Pct(m.mixed_ns))
      .Field("unknown_pct", m.Pct(m.unknown_ns))
      .Field("tensor_core_pct", m.Pct(m.tensor_core_ns))
      .Field("measured_basis_pct", m.Pct(m.measured_basis_ns))
      .Field("name_basis_pct", m.Pct(m.name_basis_ns))
      .EndObject();
}

void WriteDiagnosis(JsonWriter& json, const Diagnosis& d, const Profile* profile) {
  json.BeginObject().Field("id", d.id).Field("severity", d.severity);
  if (profile != nullptr) {
    json.Field("source", profile->metadata.source);
    json.Key("rank");
    profile->metadata.rank ? json.Int(*profile->metadata.rank) : json.Null();
  }
  json.Field("summary", d.summary);
  json.Key("evidence").BeginObject();
  for (const auto& [k, v] : d.evidence) json.Field(k, v);
  json.EndObject();
  json.Field("recommendation", d.recommendation).EndObject();
}

// Where the profile came from: source, format, rank, vendor and device.
void WriteProfileIdentity(JsonWriter& json, const Profile& p, const WorkloadReport& r) {
  json.Field("source", p.metadata.source).Field("format", p.metadata.format);
  json.Key("rank");
  p.metadata.rank ? json.Int(*p.metadata.rank) : json.Null();
  json.Key("world_size");
  p.metadata.world_size ? json.Int(*p.metadata.world_size) : json.Null();
  json.Field("vendor", VendorName(p.metadata.accelerator_vendor));
  json.Key("device").BeginObject().Field("name", r.device_name);
  json.Key("catalog_id");
  r.device_spec ? json.String(r.device_spec->id) : json.Null();
  json.Field("sm_count", r.sm_count).EndObject();
}

// "timeline" is the window the options chose (all steps, when asked for and found; else
// the whole trace); both windows follow under their own keys, then streams and steps.
void WriteProfileTimelines(JsonWriter& json, const WorkloadReport& r, const AnalysisOutputOptions& options) {
  bool has_timeline = r.timeline.trace.total_ns > 0;
  bool steps = options.steps_window && r.timeline.steps_total.has_value();
  json.Field("window", steps ? "steps" : "trace");
  json.Key("timeline");
  if (has_timeline) {
    WriteTimeline(json, steps ? *r.timeline.steps_total : r.timeline.trace);
  } else {
    json.Null();
  }
  json.Key("trace_timeline");
  has_timeline ? WriteTimeline(json, r.timeline.trace) : void(json.Null());
  json.Key("steps_timeline");
  r.timeline.steps_total ? WriteTimeline(json, *r.timeline.steps_total) : void(json.Null());
  json.Key("streams").BeginArray();
  for (const StreamTimeline& s : r.timeline.streams) {
    json.BeginObject().Field("device", s.device).Field("stream", s.stream).Key("timeline");
    WriteTimeline(json, s.breakdown);
    json.EndObject();
  }
  json.EndArray();
  json.Key("steps").BeginArray();
  for (const StepTimeline& s : r.timeline.steps) {
    json.BeginObject()
        .Field("step", s.step_number)
        .Field("cpu_start_us", Us(s.cpu_window.start_ns))
        .Field("cpu_duration_us", Us(s.cpu_window.length()))
        .Key("timeline");
    WriteTimeline(json, s.breakdown);
    json.EndObject();
  }
  json.EndArray();
}

// The TensorBoard plugin's own overview figures, or null when the input had none.
void WriteTbPluginOverview(JsonWriter& json, const std::optional<TbPluginOverview>& overview) {
  json.Key("tb_plugin");
  if (!overview) {
    json.Null();
    return;
  }
  json.BeginObject()
      .Field("window_us", Us(overview->window.length()))
      .Field("steps", overview->steps)
      .Field("average_step_us", Us(overview->average_step_ns))
      .Field("gpu_utilization_pct", overview->gpu_utilization_pct);
  WriteOptional(json, "est_sm_efficiency_pct", overview->est_sm_efficiency_pct);
  WriteOptional(json, "est_achieved_occupancy_pct", overview->est_achieved_occupancy_pct);
  json.EndObject();
}

void WriteLaunchStats(JsonWriter& json, const LaunchStats& l) {
  json.Key("launch").BeginObject().Field("kernels", l.kernels).Field("linked_kernels", l.linked_kernels);
  json.Key("launch_delay");
  WriteDistributionUs(json, l.launch_delay_ns);
  json.Key("launch_call");
  WriteDistributionUs(json, l.launch_call_ns);
  json.Key("kernel_duration");
  WriteDistributionUs(json, l.kernel_duration_ns);
  json.Field("small_kernel_threshold_us", Us(l.small_kernel_threshold_ns))
      .Field("small_kernel_count_pct", l.small_kernel_count_pct())
      .Field("small_kernel_time_pct", l.small_kernel_time_pct())
      .Field("kernels_shorter_than_launch", l.kernels_shorter_than_launch)
      .EndObject();
}

// The workload type with its evidence, and the boundness of the kernel time.
void WriteWorkloadClass(JsonWriter& json, const WorkloadReport& r) {
  const WorkloadTypeResult& t = r.workload_type;
  json.Key("workload").BeginObject().Field("type", WorkloadTypeName(t.type)).Field("confidence", t.confidence);
  json.Key("evidence").BeginArray();
  for (const std::string& e : t.evidence) json.String(e);
  json.EndArray();
  json.Field("bound", BoundnessName(r.kernels.mix.Dominant())).Key("bound_mix");
  WriteMix(json, r.kernels.mix);
  json.EndObject();
}

// Sampled metric series in their own units; a source-defined metric goes by its source
// field's name.
void WriteSeriesStats(JsonWriter& json, const std::vector<SeriesStats>& series) {
  json.Key("series").BeginArray();
  for (const SeriesStats& s : series) {
    const MetricInfo& info = GetMetricInfo(s.series->metric);
    json.BeginObject()
        .Field("metric", s.series->metric == Metric::kOther ? s.series->source_name : std::string(info.name))
        .Field("unit", info.unit)
        .Field("entity", s.label)
        .Field("samples", s.values.count)
        .Field("mean", s.values.mean)
        .Field("p50", s.values.p50)
        .Field("p95", s.p95)
        .Field("max", s.values.max)
        .EndObject();
  }
  json.EndArray();
}

void WriteProfile(JsonWriter& json, const AnalyzedProfile& a, const AnalysisOutputOptions& options) {
  const Profile& p = *a.profile;
  const WorkloadReport& r = a.report;
  json.BeginObject();
  WriteProfileIdentity(json, p, r);
  WriteProfileTimelines(json, r, options);
  WriteTbPluginOverview(json, r.tb_plugin);
  json.Key("step_time");
  r.step_time_ns.count > 0 ? WriteDistributionUs(json, r.step_time_ns) : void(json.Null());
  WriteLaunchStats(json, r.launches);

  json.Key("memory").BeginObject();
  WriteOptional(json, "peak_allocated_bytes", r.peak_allocated_bytes);
  WriteOptional(json, "peak_reserved_bytes", r.peak_reserved_bytes);
  json.EndObject();

  WriteWorkloadClass(json, r);
  json.Key("kernels").BeginObject().Field("count", r.kernels.kernel_count)
      .Field("total_us", Us(r.kernels.kernel_time_ns)).Field("distinct_names", r.kernels.distinct_names);
  json.Key("top");
  WriteKernelGroups(json, r.kernels.top, options.top_n);
  json.EndObject();
  WriteSeriesStats(json, a.series);

  WriteTraceInsightsJson(json, r.insights);
  json.Key("diagnoses").BeginArray();
  for (const Diagnosis& d : r.diagnoses) WriteDiagnosis(json, d, nullptr);
  json.EndArray();
  json.Key("import_counters").BeginObject();
  for (const auto& [k, v] : p.import_counters) json.Field(k, v);
  json.EndObject();
  WriteInsightsJson(json, a.path_insights);
  json.EndObject();
}

}  // namespace

// The "ranks" array sits two containers deep: the document's object and the array.
constexpr size_t kRankDepth = 2;

std::string RenderRankJson(const AnalyzedProfile& profile, const AnalysisOutputOptions& options) {
  JsonWriter json = JsonWriter::Nested(kRankDepth);
  WriteProfile(json, profile, options);
  return json.Take();
}

std::string RenderAnalysisJson(const std::vector<AnalyzedProfile>& profiles, const AggregateReport& aggregate,
                               const AnalysisOutputOptions& options) {
  std::vector<std::string> rank_json;
  for (const AnalyzedProfile& a : profiles) rank_json.push_back(RenderRankJson(a, options));
  return RenderAnalysisJson(profiles, rank_json, aggregate, options);
}

std::string RenderAnalysisJson(const std::vector<AnalyzedProfile>& profiles, const std::vector<std::string>& rank_json,
                               const AggregateReport& aggregate, const AnalysisOutputOptions& options) {
  JsonWriter json;
  json.BeginObject();
  json.Field("kraken_version", KRAKEN_VERSION_STRING);
  json.Key("options").BeginObject()
      .Field("window", options.steps_window ? "steps" : "trace")
      .Field("top", static_cast<uint64_t>(options.top_n))
      .Field("thresholds", options.thresholds)
      .Field("device", options.device_override)
      .EndObject();
  json.Key("ranks").BeginArray();
  for (const std::string& rank : rank_json) json.RawValue(rank);
  json.EndArray();
  json.Key("workload").BeginObject()
      .Field("type", WorkloadTypeName(aggregate.type))
      .Field("confidence", aggregate.confidence)
      .Field("bound", BoundnessName(aggregate.mix.Dominant()))
      .Key("bound_mix");
  WriteMix(json, aggregate.mix);
  json.Field("profiles", aggregate.profiles).EndObject();
  json.Key("kernels").BeginObject()
      .Field("count", aggregate.kernel_count)
      .Field("total_us", Us(aggregate.kernel_time_ns))
      .Key("top");
  WriteKernelGroups(json, aggregate.top_kernels, options.top_n);
  json.EndObject();
  json.Key("diagnoses").BeginArray();
  for (const AnalyzedProfile& a : profiles)
    for (const Diagnosis& d : a.report.diagnoses) WriteDiagnosis(json, d, a.profile);
  json.EndArray();
  if (options.stragglers != nullptr) WriteStragglersJson(json, *options.stragglers);
  json.EndObject();
  return json.Take() + "\n";
}

}  // namespace kraken
