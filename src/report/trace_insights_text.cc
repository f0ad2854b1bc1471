#include "base/text.h"
#include "base/text_table.h"
#include "report/trace_insights_output.h"

namespace kraken {
namespace {

// Long kernel names (templates) cut to a column's width.
std::string Shortened(const std::string& name, size_t width) {
  return name.size() <= width ? name : name.substr(0, width - 3) + "...";
}

std::string Ms(TimeNs ns) { return FormatFixed(static_cast<double>(ns) / 1e6, 3) + " ms"; }

std::string IdleText(const IdleBreakdown& idle) {
  if (idle.streams.empty()) return "";
  std::string out = "  Idle time breakdown (HTA's host wait / kernel wait / other):\n";
  TextTable t({"scope", "host wait", "kernel wait", "other", "idle", "gaps"});
  auto row = [&](const std::string& scope, const IdleParts& p) {
    t.AddRow({scope, Ms(p.host_wait_ns), Ms(p.kernel_wait_ns), Ms(p.other_ns), Ms(p.total_ns()), std::to_string(p.gaps)});
  };
  row("rank (all streams)", idle.rank);
  for (const StreamIdle& s : idle.streams)
    row("device " + std::to_string(s.device) + " stream " + std::to_string(s.stream), s.idle);
  for (const StepIdle& s : idle.steps) row("step " + std::to_string(s.step_number), s.idle);
  return out + t.Render("    ");
}

std::string QueueText(const LaunchQueues& queues) {
  if (queues.streams.empty()) return "";
  std::string out = "  Launch queue per stream (blocked = at or above the full-queue length):\n";
  TextTable t({"device", "stream", "launches", "max", "mean", "blocked"});
  for (const StreamQueue& q : queues.streams)
    t.AddRow({std::to_string(q.device), std::to_string(q.stream), std::to_string(q.launches), std::to_string(q.max_length),
              FormatFixed(q.mean_length, 2), Ms(q.blocked_ns)});
  return out + t.Render("    ");
}

std::string BandwidthText(const std::vector<CopyKindBandwidth>& kinds) {
  if (kinds.empty()) return "";
  std::string out = "  Memcpy/memset bandwidth:\n";
  TextTable t({"kind", "ops", "bytes", "busy", "mean GB/s", "p50 GB/s", "peak GB/s"});
  for (const CopyKindBandwidth& b : kinds)
    t.AddRow({b.kind, std::to_string(b.operations), FormatBytes(static_cast<double>(b.bytes)), Ms(b.busy_ns),
              FormatFixed(b.mean_gb_per_s, 2), FormatFixed(b.p50_gb_per_s, 2), FormatFixed(b.max_gb_per_s, 2)});
  return out + t.Render("    ");
}

std::string OverlapText(const OverlapBreakdown& o) {
  if (o.window.length() <= 0) return "";
  std::string out = "  Overlap categories (communication overlapped by computation: " +
                    FormatFixed(o.comm_overlap_pct(), 1) + "%):\n";
  TextTable t({"category", "time", "% of span"});
  for (const OverlapCategory& c : o.categories)
    t.AddRow({c.name, Ms(c.duration_ns),
              FormatFixed(100.0 * static_cast<double>(c.duration_ns) / static_cast<double>(o.window.length()), 1)});
  return out + t.Render("    ");
}

std::string MemoryText(const std::vector<DeviceMemoryTimeline>& devices) {
  if (devices.empty()) return "";
  std::string out = "  Allocator memory ([memory] events):\n";
  TextTable t({"device", "samples", "peak allocated", "at (op, step)", "peak reserved", "frag. at peak", "mean frag."});
  for (const DeviceMemoryTimeline& d : devices)
    t.AddRow({std::to_string(d.device), std::to_string(d.samples), FormatBytes(d.peak_allocated_bytes),
              (d.peak_allocated_op.empty() ? std::string("-") : d.peak_allocated_op) +
                  (d.peak_allocated_step >= 0 ? ", step " + std::to_string(d.peak_allocated_step) : ""),
              FormatBytes(d.peak_reserved_bytes), FormatBytes(d.fragmentation_at_peak_bytes),
              FormatFixed(d.mean_fragmentation_pct, 1) + "%"});
  return out + t.Render("    ");
}

std::string StepKernelsText(const std::vector<StepKernelTable>& tables) {
  TextTable t({"step", "kernel", "calls", "time", "% of step"});
  size_t rows = 0;
  for (const StepKernelTable& s : tables)
    for (size_t i = 0; i < s.top.size() && i < 3; ++i, ++rows)
      t.AddRow({std::to_string(s.step_number), Shortened(s.top[i].name, 60), std::to_string(s.top[i].count),
                Ms(s.top[i].total_ns), FormatFixed(s.top[i].pct_of_step_kernel_time, 1)});
  // Steps without kernels (an NVML-only profile has step marks but no kernel timeline): no
  // table, rather than a heading over no rows.
  if (rows == 0) return "";
  return "  Kernels per step (heaviest):\n" + t.Render("    ");
}

std::string CommunicationText(const TraceInsights& t) {
  int64_t kernels = 0;
  for (int e = 1; e < 5; ++e) kernels += t.comm_kernels_by[e];
  if (kernels == 0) return "";
  std::string out = "  Communication kernels by evidence:";
  for (int e = 1; e < 5; ++e)
    if (t.comm_kernels_by[e] > 0)
      out += std::string(" ") + CommEvidenceName(static_cast<CommEvidence>(e)) + " " +
             std::to_string(t.comm_kernels_by[e]) + " (" + Ms(t.comm_time_by_ns[e]) + ")";
  return out + "\n";
}

}  // namespace

std::string RenderTraceInsightsText(const TraceInsights& insights) {
  return IdleText(insights.idle) + QueueText(insights.queues) + BandwidthText(insights.bandwidth) +
         OverlapText(insights.overlap) + MemoryText(insights.memory) + StepKernelsText(insights.step_kernels) +
         CommunicationText(insights);
}

}  // namespace kraken
