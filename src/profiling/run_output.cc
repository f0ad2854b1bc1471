#include "profiling/run_output.h"

#include <cstdio>
#include <functional>

#include "base/json_writer.h"

namespace kraken::profiling {
namespace {

std::string Format(const char* format, double a, double b, double c) {
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), format, a, b, c);
  return buffer;
}

std::string Percentiles(const std::optional<Distribution>& d) {
  if (!d) return "unknown";
  return Format("%.4g / %.4g / %.4g %%", d->p50, d->p90, d->p99);
}

std::string GiB(double bytes) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.2f GiB (%.0f B)", bytes / (1024.0 * 1024 * 1024), bytes);
  return buffer;
}

std::string DeviceName(const RunReport& report, int32_t index) {
  for (const DeviceInfo& d : report.devices)
    if (d.index == index) return d.name;
  return "";
}

void WriteDistribution(JsonWriter& json, std::string_view key, const std::optional<Distribution>& d) {
  json.Key(key);
  if (!d) {
    json.Null();
    return;
  }
  json.BeginObject().Field("samples", d->count).Key("p50").ExactNumber(d->p50).Key("p90").ExactNumber(d->p90);
  json.Key("p99").ExactNumber(d->p99).Key("mean").ExactNumber(d->mean).Key("max").ExactNumber(d->max).EndObject();
}

void KernelLines(const KernelCaptureSummary& k, const std::function<void(const std::string&)>& line) {
  if (k.kernels == 0) {
    line(k.problems.empty() ? "  kernels:        none recorded: " + k.note
                            : "  kernels:        none recorded; the tracer said why:");
  } else {
    line("  kernels:        " + std::to_string(k.kernels) + " kernels, " + std::to_string(k.memory_ops) +
         " copies/sets, " + std::to_string(k.runtime_calls) + " launching/waiting calls in " +
         std::to_string(k.files.size()) + " CUDA process" + (k.files.size() == 1 ? "" : "es") +
         Format("; %.6g s of kernel time", k.kernel_time_s, 0, 0));
  }
  for (const std::string& problem : k.problems) line("    " + problem);
  if (k.cut_traces > 0)
    line("    " + std::to_string(k.cut_traces) + " trace(s) cut short (their process was killed): kept up to the cut");
  if (k.dropped_records > 0)
    line("    " + std::to_string(k.dropped_records) + " activity records dropped by CUPTI (buffers full)");
  if (k.kernels_with_counters > 0)
    line("    " + std::to_string(k.kernels_with_counters) + " kernels with hardware counters (FLOPs, DRAM bytes)");
  if (k.kept)
    line("    traces: " + k.trace_dir + " (Kineto format: kraken analyze, Perfetto, HTA)");
}

void WriteKernelJson(JsonWriter& json, const std::optional<KernelCaptureSummary>& kernels) {
  json.Key("kernels");
  if (!kernels) {
    json.Null();
    return;
  }
  const KernelCaptureSummary& k = *kernels;
  json.BeginObject().Field("processes", static_cast<int64_t>(k.files.size())).Field("kernels", k.kernels);
  json.Field("memory_ops", k.memory_ops).Field("runtime_calls", k.runtime_calls);
  json.Key("kernel_time_s").ExactNumber(k.kernel_time_s);
  json.Field("cut_traces", k.cut_traces).Field("dropped_records", k.dropped_records);
  json.Field("kernels_with_counters", k.kernels_with_counters);
  json.Key("trace_dir");
  k.kept ? json.String(k.trace_dir) : json.Null();
  json.Key("files").BeginArray();
  for (const std::string& file : k.files) json.String(k.kept ? file : file.substr(file.rfind('/') + 1));
  json.EndArray();
  json.Key("problems").BeginArray();
  for (const std::string& problem : k.problems) json.String(problem);
  json.EndArray();
  json.Key("note");
  k.note.empty() ? json.Null() : json.String(k.note);
  json.EndObject();
}

}  // namespace

std::string RenderRunText(const RunReport& report) {
  const RunSummary& s = report.summary;
  std::string out;
  auto line = [&](const std::string& text) { out += text + "\n"; };
  std::string what;
  for (const std::string& a : report.command) what += (what.empty() ? "" : " ") + a;
  if (report.command.empty()) what = "pid " + std::to_string(report.attached_pid) + " and its descendants";
  line("kraken profile: " + what);
  if (report.exit_code) line("  exit code:      " + std::to_string(*report.exit_code));
  line("  stopped:        " + std::string(StopReasonName(report.stop_reason)));
  line("  passes:         " + std::to_string(s.passes) + Format(" every %.6g s (%.6g s sampled)", s.interval_s,
                                                                      s.interval_s * static_cast<double>(s.passes), 0) +
       ", " + std::to_string(report.tree_pids.size()) + " processes in the tree");
  line("  workload type:  " + s.workload_type + " (" + s.workload_type_reason + ")");
  line("  bound:          " + s.bound + " (" + s.bound_reason + ")");
  if (s.gpus_used.empty()) line("  GPUs used:      none (no process of the tree appeared in NVML's process lists)");
  for (const GpuRunSummary& g : s.gpus_used) {
    std::string head = "  gpu " + std::to_string(g.gpu_index) + " " + DeviceName(report, g.gpu_index);
    if (!g.gpu_instances.empty()) {
      head += " (MIG GPU instance";
      for (int32_t gi : g.gpu_instances) {
        head += ' ';
        head += std::to_string(gi);
      }
      head += ")";
    }
    line(head + ":");
    line("    tree SM util p50/p90/p99:   " + Percentiles(g.tree_sm_util_pct));
    line("    device util p50/p90/p99:    " + Percentiles(g.device_util_pct));
    line("    tree memory peak:           " + GiB(g.tree_memory_peak_bytes));
    line("    tree present / shared:      " + std::to_string(g.passes_present) + " / " +
         std::to_string(g.passes_shared) + " passes");
  }
  line("  memory peak:    " + GiB(s.memory_peak_bytes) + " (all GPUs, one pass)");
  if (s.idle.known) {
    std::string figures = Format(", longest %.6g s, total %.6g s", s.idle.longest_s, s.idle.total_s, 0);
    line("  idle gaps:      " + std::to_string(s.idle.count) + figures + " (by " + s.idle.basis + ")");
  } else if (s.gpus_used.empty()) {
    line("  idle gaps:      unknown (the tree used no GPU)");
  } else {
    line("  idle gaps:      unknown (utilization not reported in every pass)");
  }
  std::string period = s.periodicity_known ? temporal::PeriodVerdictName(s.periodicity) : "unknown";
  if (s.periodicity == temporal::PeriodVerdict::kPeriodic) period += Format(", period %.6g s", s.period_s, 0, 0);
  line("  periodicity:    " + period + " (" + s.periodicity_reason + ")");
  if (report.kernels) KernelLines(*report.kernels, line);
  if (!report.stored_db.empty())
    line("  stored:         profile " + std::to_string(report.stored_id) + " in " + report.stored_db);
  else if (!report.stored_file.empty())
    line("  stored:         " + report.stored_file);
  else
    line("  stored:         nowhere (--no-store)");
  return out;
}

std::string RenderRunJson(const RunReport& report) {
  const RunSummary& s = report.summary;
  JsonWriter json;
  json.BeginObject();
  json.Key("command").BeginArray();
  for (const std::string& a : report.command) json.String(a);
  json.EndArray();
  json.Key("attached_pid");
  report.attached_pid > 0 ? json.Int(report.attached_pid) : json.Null();
  json.Key("exit_code");
  report.exit_code ? json.Int(*report.exit_code) : json.Null();
  json.Field("stop_reason", StopReasonName(report.stop_reason));
  json.Field("passes", s.passes).Key("interval_s").ExactNumber(s.interval_s);
  json.Key("tree_pids").BeginArray();
  for (int64_t pid : report.tree_pids) json.Int(pid);
  json.EndArray();
  json.Key("workload_type").BeginObject().Field("type", s.workload_type);
  json.Field("reason", s.workload_type_reason).EndObject();
  json.Key("bound").BeginObject().Field("bound", s.bound).Field("reason", s.bound_reason).EndObject();
  json.Key("gpus").BeginArray();
  for (const GpuRunSummary& g : s.gpus_used) {
    json.BeginObject().Field("index", static_cast<int64_t>(g.gpu_index)).Field("name", DeviceName(report, g.gpu_index));
    json.Key("mig_gpu_instances").BeginArray();
    for (int32_t gi : g.gpu_instances) json.Int(gi);
    json.EndArray();
    json.Field("passes_present", g.passes_present).Field("passes_shared", g.passes_shared);
    WriteDistribution(json, "tree_sm_util_pct", g.tree_sm_util_pct);
    WriteDistribution(json, "device_util_pct", g.device_util_pct);
    json.Key("tree_memory_peak_bytes").ExactNumber(g.tree_memory_peak_bytes).EndObject();
  }
  json.EndArray();
  json.Key("memory_peak_bytes").ExactNumber(s.memory_peak_bytes);
  json.Key("idle_gaps").BeginObject().Field("known", s.idle.known).Field("basis", s.idle.basis);
  json.Field("count", s.idle.count).Field("longest_passes", s.idle.longest_passes);
  json.Field("total_passes", s.idle.total_passes).Key("longest_s").ExactNumber(s.idle.longest_s);
  json.Key("total_s").ExactNumber(s.idle.total_s).EndObject();
  json.Key("periodicity").BeginObject();
  json.Field("verdict", s.periodicity_known ? temporal::PeriodVerdictName(s.periodicity) : "unknown");
  json.Field("reason", s.periodicity_reason).Key("period_s").ExactNumber(s.period_s).EndObject();
  WriteKernelJson(json, report.kernels);
  json.Key("stored").BeginObject();
  json.Key("db");
  report.stored_db.empty() ? json.Null() : json.String(report.stored_db);
  json.Key("profile_id");
  report.stored_id > 0 ? json.Int(report.stored_id) : json.Null();
  json.Key("file");
  report.stored_file.empty() ? json.Null() : json.String(report.stored_file);
  json.EndObject();
  json.EndObject();
  return json.Take() + "\n";
}

}  // namespace kraken::profiling
