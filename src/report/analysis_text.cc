#include <cstdio>

#include "base/text.h"
#include "base/text_table.h"
#include "model/metrics.h"
#include "report/analysis_output.h"
#include "report/insights_output.h"
#include "report/profile_summary.h"
#include "report/trace_insights_output.h"

namespace kraken {
namespace {

using Align = TextTable::Align;

std::string Ms(TimeNs ns) { return FormatFixed(static_cast<double>(ns) / 1e6, 3); }
std::string UsText(double ns) { return FormatFixed(ns / 1000.0, 1); }
std::string PctText(double pct) { return FormatFixed(pct, 2); }

std::string TimelineTable(const std::vector<std::pair<std::string, const TimelineBreakdown*>>& rows) {
  TextTable table({"window", "total ms", "busy ms", "idle ms", "idle %", "compute ms", "comm ms", "exposed comm ms",
                   "memcpy ms", "exposed memcpy ms"},
                  {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                   Align::kRight, Align::kRight, Align::kRight, Align::kRight});
  for (const auto& [name, t] : rows) {
    table.AddRow({name, Ms(t->total_ns), Ms(t->busy_ns), Ms(t->idle_ns), PctText(t->idle_pct()), Ms(t->compute_ns),
                  Ms(t->comm_ns), Ms(t->exposed_comm_ns), Ms(t->memcpy_ns), Ms(t->exposed_memcpy_ns)});
  }
  return table.Render();
}

std::string KernelTable(const std::vector<KernelGroupStats>& groups, size_t top_n) {
  TextTable table({"kernel", "count", "total ms", "mean µs", "% time", "bound", "basis", "AI", "tensor"},
                  {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft,
                   Align::kRight, Align::kLeft});
  table.SetMaxWidth(0, 70);
  for (size_t i = 0; i < groups.size() && i < top_n; ++i) {
    const KernelGroupStats& g = groups[i];
    const KernelClassification& c = g.classification;
    table.AddRow({g.name, std::to_string(g.count), Ms(g.total_ns), UsText(g.mean_ns), PctText(g.pct_of_kernel_time),
                  BoundnessName(c.bound), ClassificationBasisName(c.basis),
                  c.arithmetic_intensity ? FormatFixed(*c.arithmetic_intensity, 1) : "-",
                  g.uses_tensor_cores ? "yes" : ""});
  }
  return table.Render();
}

std::string MixLine(const BoundMix& m) {
  return "compute " + PctText(m.Pct(m.compute_ns)) + "%, memory " + PctText(m.Pct(m.memory_ns)) + "%, latency " +
         PctText(m.Pct(m.latency_ns)) + "%, mixed " + PctText(m.Pct(m.mixed_ns)) + "%, unclassified " +
         PctText(m.Pct(m.unknown_ns)) + "%; tensor cores " + PctText(m.Pct(m.tensor_core_ns)) + "% of kernel time";
}

// The profile's title line, then its device, workload type and boundness lines (each
// only when the profile has something to say).
void AppendProfileHeader(std::string& out, const Profile& p, const WorkloadReport& r) {
  out += "== " + p.metadata.source + "  [" + p.metadata.format + "]";
  if (p.metadata.rank) out += "  rank " + std::to_string(*p.metadata.rank);
  if (p.metadata.world_size) out += " of " + std::to_string(*p.metadata.world_size);
  out += "\n";
  if (!r.device_name.empty() || r.device_spec != nullptr) {
    out += "Device: " + (r.device_name.empty() ? std::string("(not named)") : r.device_name);
    out += r.device_spec ? "  (roofline peaks: " + r.device_spec->name + ")" : "  (not in the device catalog; --device sets it)";
    if (r.sm_count > 0) out += ", " + std::to_string(r.sm_count) + " SMs";
    out += "\n";
  }
  const WorkloadTypeResult& t = r.workload_type;
  if (r.kernels.kernel_count > 0 || !p.cpu_ops.empty()) {
    out += std::string("Workload: ") + WorkloadTypeName(t.type) + " (" + t.confidence + " confidence)";
    for (size_t i = 0; i < t.evidence.size(); ++i) out += (i == 0 ? ": " : "; ") + t.evidence[i];
    out += "\n";
  }
  if (r.kernels.kernel_count > 0) {
    out += std::string("Bound: ") + BoundnessName(r.kernels.mix.Dominant()) + " (" + MixLine(r.kernels.mix) + ")\n";
  }
}

// The GPU timeline table (whole trace, all steps, and each step when there are few or a
// steps window was asked for), then one per stream when there are several; or why there
// is no timeline.
void AppendGpuTimeline(std::string& out, const Profile& p, const WorkloadReport& r,
                       const AnalysisOutputOptions& options) {
  if (r.timeline.trace.total_ns > 0) {
    std::vector<std::pair<std::string, const TimelineBreakdown*>> rows;
    rows.emplace_back("whole trace", &r.timeline.trace);
    if (r.timeline.steps_total) rows.emplace_back("all steps", &*r.timeline.steps_total);
    bool show_steps = options.steps_window || r.timeline.steps.size() <= 12;
    // The rows point at their names: the names are all made before the first row is.
    std::vector<std::string> names;
    names.reserve(r.timeline.steps.size());
    if (show_steps)
      for (const StepTimeline& s : r.timeline.steps) names.push_back("step " + std::to_string(s.step_number));
    for (size_t i = 0; show_steps && i < r.timeline.steps.size(); ++i)
      rows.emplace_back(names[i], &r.timeline.steps[i].breakdown);
    out += "\nGPU timeline\n" + TimelineTable(rows);
    if (r.timeline.streams.size() > 1) {
      std::vector<std::pair<std::string, const TimelineBreakdown*>> streams;
      std::vector<std::string> labels;
      labels.reserve(r.timeline.streams.size());
      for (const StreamTimeline& s : r.timeline.streams)
        labels.push_back("gpu " + std::to_string(s.device) + " stream " + std::to_string(s.stream));
      for (size_t i = 0; i < r.timeline.streams.size(); ++i)
        streams.emplace_back(labels[i], &r.timeline.streams[i].breakdown);
      out += "\nPer stream (over the whole trace)\n" + TimelineTable(streams);
    }
  } else if (!p.metadata.kernel_timestamps_valid && r.kernels.kernel_count > 0) {
    out += "\nNo GPU timeline: this input has kernel measurements without timestamps.\n";
  }
}

// One line each, where measured: the TensorBoard plugin's own figures, step time, kernel
// launches and the allocator's memory peaks.
void AppendStepLaunchAndMemoryLines(std::string& out, const WorkloadReport& r) {
  if (r.tb_plugin) {
    const TbPluginOverview& o = *r.tb_plugin;
    out += "\nTensorBoard-plugin figures (its definitions): GPU utilization " + PctText(o.gpu_utilization_pct) + "%";
    if (o.est_sm_efficiency_pct) out += ", est. SM efficiency " + PctText(*o.est_sm_efficiency_pct) + "%";
    if (o.est_achieved_occupancy_pct) out += ", est. achieved occupancy " + PctText(*o.est_achieved_occupancy_pct) + "%";
    out += ", average step " + Ms(o.average_step_ns) + " ms\n";
  }
  if (r.step_time_ns.count > 0) {
    const Distribution& s = r.step_time_ns;
    out += "Step time (" + std::to_string(s.count) + " steps): mean " + Ms(static_cast<TimeNs>(s.mean)) + " ms, p50 " +
           Ms(static_cast<TimeNs>(s.p50)) + " ms, p99 " + Ms(static_cast<TimeNs>(s.p99)) + " ms, jitter (CV) " +
           PctText(100 * s.cv()) + "%\n";
  }
  const LaunchStats& l = r.launches;
  if (l.linked_kernels > 0) {
    out += "Launches: " + std::to_string(l.linked_kernels) + " of " + std::to_string(l.kernels) +
           " kernels linked to their launch; launch delay p50 " + UsText(l.launch_delay_ns.p50) + " µs, p99 " +
           UsText(l.launch_delay_ns.p99) + " µs; " + PctText(l.small_kernel_count_pct()) + "% of kernels under " +
           UsText(static_cast<double>(l.small_kernel_threshold_ns)) + " µs (" + PctText(l.small_kernel_time_pct()) +
           "% of kernel time)\n";
  }
  if (r.peak_allocated_bytes) {
    out += "Device memory (allocator): peak allocated " + FormatBytes(*r.peak_allocated_bytes);
    if (r.peak_reserved_bytes) out += ", peak reserved " + FormatBytes(*r.peak_reserved_bytes);
    out += "\n";
  }
}

// The table of sampled metric series: one row per series, bytes in GiB and rates in
// MB/s (they read better so); a source-defined metric shows its source's unit.
std::string SampledMetricsTable(const std::vector<SeriesStats>& series) {
  TextTable table({"metric", "source field", "entity", "samples", "mean", "p50", "p95", "max", "unit"},
                  {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight,
                   Align::kRight, Align::kRight, Align::kLeft});
  table.SetMaxWidth(0, 40);
  table.SetMaxWidth(1, 40);
  table.SetMaxWidth(2, 50);
  for (const SeriesStats& s : series) {
    const MetricInfo& info = GetMetricInfo(s.series->metric);
    std::string metric = s.series->metric == Metric::kOther ? "-" : std::string(info.name);
    double scale = 1;
    std::string unit(info.unit);
    auto source_unit = s.series->entity.labels.find("unit");
    if (s.series->metric == Metric::kOther && source_unit != s.series->entity.labels.end()) unit = source_unit->second;
    if (unit == "B") {
      scale = 1.0 / (1 << 30);
      unit = "GiB";
    } else if (unit == "B/s") {
      scale = 1e-6;
      unit = "MB/s";
    }
    table.AddRow({metric, s.series->source_name, s.label, std::to_string(s.values.count),
                  FormatFixed(s.values.mean * scale, 2), FormatFixed(s.values.p50 * scale, 2),
                  FormatFixed(s.p95 * scale, 2), FormatFixed(s.values.max * scale, 2), unit});
  }
  return table.Render();
}

void AppendDiagnoses(std::string& out, const std::vector<Diagnosis>& diagnoses) {
  if (diagnoses.empty()) return;
  out += "\nDiagnoses\n";
  for (const Diagnosis& d : diagnoses) {
    out += "  [" + d.severity + "] " + d.summary + "\n";
    if (!d.recommendation.empty()) out += "      -> " + d.recommendation + "\n";
  }
}

// The importer's counters of input it skipped (malformed, bad or unparsable records), so
// that a reader knows the figures leave something out; its other counters are not shown.
void AppendSkippedInput(std::string& out, const Profile& p) {
  std::string skipped;
  for (const auto& [k, v] : p.import_counters) {
    if (k.find("malformed") == std::string::npos && k.find("bad") == std::string::npos &&
        k.find("unparsable") == std::string::npos)
      continue;
    skipped += (skipped.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  }
  if (!skipped.empty()) out += "\nSkipped input: " + skipped + "\n";
}

void RenderProfile(std::string& out, const AnalyzedProfile& a, const AnalysisOutputOptions& options) {
  const Profile& p = *a.profile;
  const WorkloadReport& r = a.report;
  AppendProfileHeader(out, p, r);
  AppendGpuTimeline(out, p, r, options);
  AppendStepLaunchAndMemoryLines(out, r);
  if (r.kernels.kernel_count > 0) {
    out += "\nTop kernels (" + std::to_string(r.kernels.kernel_count) + " launches, " +
           std::to_string(r.kernels.distinct_names) + " distinct, " + Ms(r.kernels.kernel_time_ns) + " ms)\n" +
           KernelTable(r.kernels.top, options.top_n);
  }
  if (std::string insights = RenderTraceInsightsText(r.insights); !insights.empty()) out += "\n" + insights;
  if (!a.series.empty()) out += "\nSampled metrics\n" + SampledMetricsTable(a.series);
  if (std::string insights = RenderInsightsText(a.path_insights); !insights.empty()) {
    out += '\n';
    out += insights;
  }
  AppendDiagnoses(out, r.diagnoses);
  AppendSkippedInput(out, p);
  out += "\n";
}

}  // namespace

std::string RenderAnalysisText(const std::vector<AnalyzedProfile>& profiles, const AggregateReport& aggregate,
                               const AnalysisOutputOptions& options) {
  std::string out;
  for (const AnalyzedProfile& a : profiles) RenderProfile(out, a, options);
  if (profiles.size() > 1) {
    out += "== All " + std::to_string(profiles.size()) + " profiles\n";
    out += std::string("Workload: ") + WorkloadTypeName(aggregate.type) + " (" + aggregate.confidence +
           " confidence); bound: " + BoundnessName(aggregate.mix.Dominant()) + " (" + MixLine(aggregate.mix) + ")\n";
    if (aggregate.kernel_count > 0) out += "Top kernels across profiles\n" + KernelTable(aggregate.top_kernels, options.top_n);
  }
  if (options.stragglers != nullptr && !options.stragglers->ranks.empty()) {
    out += '\n';
    out += RenderStragglersText(*options.stragglers);
  }
  return out;
}

}  // namespace kraken
