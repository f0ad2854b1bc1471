#include "report/trace_insights_output.h"

namespace kraken {
namespace {

double Us(TimeNs ns) { return static_cast<double>(ns) / 1000.0; }

void WriteIdleParts(JsonWriter& json, const IdleParts& p) {
  json.Field("host_wait_us", Us(p.host_wait_ns))
      .Field("kernel_wait_us", Us(p.kernel_wait_ns))
      .Field("other_us", Us(p.other_ns))
      .Field("idle_us", Us(p.total_ns()))
      .Field("gaps", p.gaps);
}

void WriteIdle(JsonWriter& json, const IdleBreakdown& idle, TimeNs kernel_delay_ns) {
  json.Key("idle_breakdown").BeginObject().Field("consecutive_kernel_delay_ns", kernel_delay_ns).Key("rank").BeginObject();
  WriteIdleParts(json, idle.rank);
  json.EndObject().Key("streams").BeginArray();
  for (const StreamIdle& s : idle.streams) {
    json.BeginObject().Field("device", s.device).Field("stream", s.stream);
    WriteIdleParts(json, s.idle);
    json.EndObject();
  }
  json.EndArray().Key("steps").BeginArray();
  for (const StepIdle& s : idle.steps) {
    json.BeginObject().Field("step", s.step_number).Field("start_us", Us(s.window.start_ns));
    WriteIdleParts(json, s.idle);
    json.EndObject();
  }
  json.EndArray().EndObject();
}

void WriteQueues(JsonWriter& json, const LaunchQueues& queues, int64_t max_queue_length) {
  json.Key("launch_queue").BeginObject().Field("max_queue_length", max_queue_length)
      .Field("blocked_us", Us(queues.blocked_ns)).Key("streams").BeginArray();
  for (const StreamQueue& q : queues.streams) {
    json.BeginObject().Field("device", q.device).Field("stream", q.stream).Field("launches", q.launches)
        .Field("max_length", q.max_length).Field("max_at_us", Us(q.max_at_ns)).Field("mean_length", q.mean_length)
        .Field("blocked_us", Us(q.blocked_ns)).Key("series").BeginArray();
    for (const QueuePoint& p : q.series) json.BeginArray().Number(Us(p.time_ns)).Int(p.length).EndArray();
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
}

void WriteBandwidth(JsonWriter& json, const std::vector<CopyKindBandwidth>& kinds) {
  json.Key("memcpy_bandwidth").BeginArray();
  for (const CopyKindBandwidth& b : kinds) {
    json.BeginObject().Field("kind", b.kind).Field("operations", b.operations).Field("bytes", b.bytes)
        .Field("busy_us", Us(b.busy_ns)).Field("mean_gbps", b.mean_gb_per_s).Field("p50_gbps", b.p50_gb_per_s)
        .Field("max_gbps", b.max_gb_per_s).Key("series").BeginArray();
    for (const BandwidthPoint& p : b.series) json.BeginArray().Number(Us(p.time_ns)).Number(p.gb_per_s).EndArray();
    json.EndArray().EndObject();
  }
  json.EndArray();
}

void WriteOverlap(JsonWriter& json, const OverlapBreakdown& o) {
  json.Key("overlap").BeginObject().Field("start_us", Us(o.window.start_ns)).Field("total_us", Us(o.window.length()))
      .Field("comm_us", Us(o.comm_ns)).Field("comm_overlapped_us", Us(o.comm_overlapped_ns))
      .Field("comm_overlap_pct", o.comm_overlap_pct()).Key("categories").BeginObject();
  for (const OverlapCategory& c : o.categories) json.Field(c.name + "_us", Us(c.duration_ns));
  json.EndObject().EndObject();
}

void WriteMemory(JsonWriter& json, const std::vector<DeviceMemoryTimeline>& devices) {
  json.Key("memory_timeline").BeginArray();
  for (const DeviceMemoryTimeline& d : devices) {
    json.BeginObject().Field("device", d.device).Field("samples", d.samples)
        .Field("peak_allocated_bytes", d.peak_allocated_bytes).Field("peak_allocated_at_us", Us(d.peak_allocated_at_ns))
        .Field("peak_allocated_op", d.peak_allocated_op).Key("peak_allocated_step");
    d.peak_allocated_step >= 0 ? json.Int(d.peak_allocated_step) : json.Null();
    json.Field("peak_reserved_bytes", d.peak_reserved_bytes).Field("peak_reserved_at_us", Us(d.peak_reserved_at_ns))
        .Field("fragmentation_at_peak_bytes", d.fragmentation_at_peak_bytes)
        .Field("max_fragmentation_bytes", d.max_fragmentation_bytes)
        .Field("mean_fragmentation_pct", d.mean_fragmentation_pct).Key("series").BeginArray();
    for (const MemoryPoint& p : d.series)
      json.BeginArray().Number(Us(p.time_ns)).Number(p.allocated_bytes).Number(p.reserved_bytes).EndArray();
    json.EndArray().EndObject();
  }
  json.EndArray();
}

void WriteStepKernels(JsonWriter& json, const std::vector<StepKernelTable>& tables) {
  json.Key("step_kernels").BeginArray();
  for (const StepKernelTable& t : tables) {
    json.BeginObject().Field("step", t.step_number).Field("kernels", t.kernels)
        .Field("kernel_time_us", Us(t.kernel_time_ns)).Key("top").BeginArray();
    for (const StepKernelRow& r : t.top)
      json.BeginObject().Field("name", r.name).Field("count", r.count).Field("total_us", Us(r.total_ns))
          .Field("pct_of_step_kernel_time", r.pct_of_step_kernel_time).EndObject();
    json.EndArray().EndObject();
  }
  json.EndArray();
}

void WriteCommunication(JsonWriter& json, const TraceInsights& t) {
  int64_t kernels = 0;
  TimeNs time = 0;
  for (int e = 1; e < 5; ++e) {
    kernels += t.comm_kernels_by[e];
    time += t.comm_time_by_ns[e];
  }
  json.Key("communication").BeginObject().Field("kernels", kernels).Field("time_us", Us(time)).Key("by_evidence").BeginObject();
  for (int e = 1; e < 5; ++e) {
    json.Key(CommEvidenceName(static_cast<CommEvidence>(e))).BeginObject()
        .Field("kernels", t.comm_kernels_by[e]).Field("time_us", Us(t.comm_time_by_ns[e])).EndObject();
  }
  json.EndObject().EndObject();
}

}  // namespace

void WriteTraceInsightsJson(JsonWriter& json, const TraceInsights& insights) {
  WriteIdle(json, insights.idle, insights.options.idle.consecutive_kernel_delay_ns);
  WriteQueues(json, insights.queues, insights.options.queue.max_queue_length);
  WriteBandwidth(json, insights.bandwidth);
  WriteOverlap(json, insights.overlap);
  WriteMemory(json, insights.memory);
  WriteStepKernels(json, insights.step_kernels);
  WriteCommunication(json, insights);
}

}  // namespace kraken
