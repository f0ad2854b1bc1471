#include "analysis/disagg/network_model.h"

#include <algorithm>
#include <cmath>

#include "analysis/intervals.h"
#include "analysis/timeline.h"
#include "base/text.h"
#include "base/text_table.h"

namespace kraken::disagg {
namespace {

bool InWindow(TimeNs start, const Interval& w) { return start >= w.start_ns && start < w.end_ns; }

// Bytes of one element of a collective's dtype as PyTorch names it; 0 when unknown.
double DtypeBytes(std::string_view dtype) {
  std::string t = ToLower(dtype);
  if (t == "byte" || t == "char" || t == "bool" || StartsWith(t, "float8")) return 1;
  if (t == "short" || t == "half" || t == "bfloat16") return 2;
  if (t == "float" || t == "int") return 4;
  if (t == "double" || t == "long" || t == "complexfloat") return 8;
  if (t == "complexdouble") return 16;
  return 0;
}

// Bytes one rank sends over its link, and the latencies it pays, for a ring algorithm
// (NCCL's default for large messages): all-reduce = reduce-scatter + all-gather.
Transfer CollectiveOnWire(std::string_view name, double message_bytes, int64_t group) {
  Transfer t;
  double n = static_cast<double>(group);
  double share = (n - 1) / n;
  std::string c = ToLower(name);
  if (c.find("allreduce") != std::string::npos || c.find("all_reduce") != std::string::npos) {
    t.bytes = 2 * share * message_bytes;
    t.hops = static_cast<int32_t>(2 * (group - 1));
  } else if (c.find("broadcast") != std::string::npos || c == "send" || c == "recv" || c == "reduce") {
    t.bytes = message_bytes;  // every byte leaves (or reaches) this rank once
    t.hops = static_cast<int32_t>(group - 1);
  } else {  // all-gather, reduce-scatter, all-to-all: each rank exchanges (n-1)/n of it
    t.bytes = share * message_bytes;
    t.hops = static_cast<int32_t>(group - 1);
  }
  return t;
}

bool IsSyncCall(std::string_view name) {
  if (name.find("Synchronize") != std::string_view::npos) return true;
  // Blocking copies and memsets return when the GPU is done.
  bool copy = StartsWith(name, "cudaMemcpy") || StartsWith(name, "hipMemcpy") || StartsWith(name, "cudaMemset") ||
              StartsWith(name, "hipMemset");
  return copy && name.find("Async") == std::string_view::npos;
}

// Per-direction PCIe bandwidth of a link (GB/s per lane after encoding overhead).
double PcieBytesPerS(const DeviceInfo& d) {
  if (!d.pcie_generation || !d.pcie_link_width || *d.pcie_link_width <= 0) return 0;
  static constexpr double kPerLaneGBps[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877};
  int gen = *d.pcie_generation;
  if (gen < 1 || gen > 6) return 0;
  return kPerLaneGBps[gen] * 1e9 * *d.pcie_link_width;
}

void FromTrace(const Profile& profile, const WorkloadReport& report, TrafficProfile* t) {
  const TimelineBreakdown& w = report.main_window();
  t->span_s = static_cast<double>(w.total_ns) / 1e9;
  t->gpu_busy_s = static_cast<double>(w.busy_ns) / 1e9;
  std::vector<Interval> kernels, copies;
  for (const Kernel& k : profile.kernels) {
    if (!InWindow(k.start_ns, w.window)) continue;
    kernels.push_back({k.start_ns, k.end_ns()});
    if (k.collective_index < 0) {
      // A collective the trace recorded without its arguments: its bytes are unknown.
      if (IsCommunicationKernelName(profile.Name(k.name))) ++t->collectives_without_sizes;
      continue;
    }
    if (static_cast<size_t>(k.collective_index) >= profile.collectives.size()) continue;
    const CollectiveInfo& c = profile.collectives[static_cast<size_t>(k.collective_index)];
    int64_t elements = std::max(c.in_msg_nelems, c.out_msg_nelems);
    int64_t group = c.group_size > 0 ? c.group_size : profile.metadata.world_size.value_or(0);
    double element_bytes = DtypeBytes(c.dtype);
    if (elements < 0 || element_bytes <= 0 || group <= 0) {
      ++t->collectives_without_sizes;
      continue;
    }
    if (group == 1) continue;  // nothing leaves the rank
    Transfer x = CollectiveOnWire(c.collective_name, static_cast<double>(elements) * element_bytes, group);
    x.measured_s = static_cast<double>(k.duration_ns) / 1e9;
    t->collectives.push_back(x);
  }
  for (const MemoryOp& m : profile.memory_ops) {
    if (m.kind != MemoryOpKind::kMemcpy || !InWindow(m.start_ns, w.window)) continue;
    if (m.direction != CopyDirection::kHostToDevice && m.direction != CopyDirection::kDeviceToHost) continue;
    if (m.bytes < 0) {
      ++t->copies_without_bytes;
      continue;
    }
    if (m.pageable_host_memory) ++t->pageable_copies;
    t->host_copies.push_back({static_cast<double>(m.bytes), static_cast<double>(m.duration_ns) / 1e9, 1});
    copies.push_back({m.start_ns, m.end_ns()});
  }
  IntervalSet copy_set = IntervalSet::Union(std::move(copies));
  TimeNs copy_ns = copy_set.TotalLength();
  if (copy_ns > 0) {
    TimeNs exposed = copy_set.Minus(IntervalSet::Union(std::move(kernels))).TotalLength();
    t->host_copy_exposed_share = static_cast<double>(exposed) / static_cast<double>(copy_ns);
  }
  if (w.comm_ns > 0)
    t->collective_exposed_share = static_cast<double>(w.exposed_comm_ns) / static_cast<double>(w.comm_ns);
  // Runtime calls; driver calls only when the trace has no runtime calls (a runtime call
  // usually wraps a driver call, and counting both would count one crossing twice).
  int64_t runtime = 0, runtime_sync = 0, driver = 0, driver_sync = 0;
  for (const RuntimeCall& call : profile.runtime_calls) {
    if (!InWindow(call.start_ns, w.window)) continue;
    bool sync = IsSyncCall(profile.Name(call.name));
    (call.is_driver_api ? driver : runtime) += 1;
    (call.is_driver_api ? driver_sync : runtime_sync) += sync ? 1 : 0;
  }
  t->api_calls = runtime > 0 ? runtime : driver;
  t->sync_calls = runtime > 0 ? runtime_sync : driver_sync;
}

void FromSamples(const Profile& profile, const WorkloadDemand& demand, TrafficProfile* t) {
  t->span_s = demand.duration_s;
  t->gpu_busy_s = demand.gpu_busy.measured ? demand.gpu_busy.mean * demand.duration_s : 0;
  t->has_rates = demand.pcie_bytes_per_s.measured || demand.nvlink_bytes_per_s.measured;
  if (demand.pcie_bytes_per_s.measured) t->pcie_bytes_per_s = demand.pcie_bytes_per_s.mean;
  if (demand.nvlink_bytes_per_s.measured) t->nvlink_bytes_per_s = demand.nvlink_bytes_per_s.mean;
  for (const DeviceInfo& d : profile.devices) t->local_pcie_bytes_per_s = std::max(t->local_pcie_bytes_per_s, PcieBytesPerS(d));
}

double AddedTime(const Transfer& x, const RemoteLink& link) {
  double remote = x.bytes / link.bytes_per_s + x.hops * link.latency_s;
  return std::max(0.0, remote - x.measured_s);
}

}  // namespace

double TrafficProfile::host_bytes() const {
  double sum = 0;
  for (const Transfer& x : host_copies) sum += x.bytes;
  return sum;
}

double TrafficProfile::collective_bytes() const {
  double sum = 0;
  for (const Transfer& x : collectives) sum += x.bytes;
  return sum;
}

bool TrafficProfile::measured() const {
  return source_kind == "trace" ? span_s > 0 : has_rates;
}

TrafficProfile ExtractTraffic(const Profile& profile, const WorkloadReport& report, const WorkloadDemand& demand) {
  TrafficProfile t;
  t.source_kind = demand.source_kind;
  if (demand.source_kind == "trace") {
    FromTrace(profile, report, &t);
  } else if (demand.source_kind == "samples") {
    FromSamples(profile, demand, &t);
  }
  return t;
}

LinkSensitivity EvaluateLink(const TrafficProfile& t, const RemoteLink& link) {
  LinkSensitivity s;
  s.link = link;
  s.measured = t.measured() && link.bytes_per_s > 0;
  if (!s.measured) return s;
  if (t.source_kind == "trace") {
    LinkComponent copies{"host copies", static_cast<int64_t>(t.host_copies.size()), t.host_bytes(), 0, 0};
    for (const Transfer& x : t.host_copies) copies.added_hi_s += AddedTime(x, link);
    copies.added_lo_s = copies.added_hi_s * t.host_copy_exposed_share;
    LinkComponent calls{"API calls", t.api_calls, 0, 0, 0};
    calls.added_lo_s = static_cast<double>(t.sync_calls) * 2 * link.latency_s;
    calls.added_hi_s = static_cast<double>(t.api_calls) * 2 * link.latency_s;
    LinkComponent collectives{"collectives", static_cast<int64_t>(t.collectives.size()), t.collective_bytes(), 0, 0};
    for (const Transfer& x : t.collectives) collectives.added_hi_s += AddedTime(x, link);
    collectives.added_lo_s = collectives.added_hi_s * t.collective_exposed_share;
    s.components = {copies, calls, collectives};
    double lo = 0, hi = 0;
    for (const LinkComponent& c : s.components) {
      lo += c.added_lo_s;
      hi += c.added_hi_s;
    }
    s.slowdown_lo = t.span_s > 0 ? lo / t.span_s : 0;
    s.slowdown_hi = t.span_s > 0 ? hi / t.span_s : 0;
    return s;
  }
  // Sampled rates: per second of wall time.
  double rate = t.pcie_bytes_per_s + t.nvlink_bytes_per_s;
  LinkComponent sampled{"sampled PCIe + NVLink", 0, rate, 0, 0};
  sampled.added_hi_s = rate / link.bytes_per_s;
  double local_share = t.local_pcie_bytes_per_s > 0 ? rate / (2 * t.local_pcie_bytes_per_s) : 0;
  sampled.added_lo_s = std::max(0.0, rate / (2 * link.bytes_per_s) - local_share);
  s.components = {sampled};
  s.slowdown_lo = sampled.added_lo_s;
  s.slowdown_hi = sampled.added_hi_s;
  s.required_bytes_per_s = rate / 2;  // both directions of a full-duplex link
  s.saturated = s.required_bytes_per_s > link.bytes_per_s;
  return s;
}

Explanation ExplainTraffic(const TrafficProfile& t) {
  Explanation e;
  if (t.source_kind == "trace") {
    e.Input("window wall time", t.span_s, "s", "GPU timeline window (steps when present)");
    e.Input("GPU busy time", t.gpu_busy_s, "s", "union of GPU events in the window");
  }
  if (t.source_kind == "trace") {
    e.Input("host<->device copies", static_cast<double>(t.host_copies.size()), "", "H2D + D2H memcpy with a byte count");
    e.Input("host<->device bytes", t.host_bytes(), "B", "sum of their bytes");
    if (t.gpu_busy_s > 0) e.Input("host bytes per GPU-second", t.host_bytes() / t.gpu_busy_s, "B/s", "host bytes / GPU busy time");
    e.Input("copy time exposed", t.host_copy_exposed_share, "ratio", "copy time not overlapped by kernels / copy time");
    e.Input("pageable copies", static_cast<double>(t.pageable_copies), "", "staged through a bounce buffer");
    e.Input("runtime API calls", static_cast<double>(t.api_calls), "", "runtime calls in the window");
    e.Input("synchronising calls", static_cast<double>(t.sync_calls), "", "*Synchronize and blocking memcpy/memset");
    e.Input("collectives with sizes", static_cast<double>(t.collectives.size()), "", "NCCL/RCCL kernels with message size args");
    e.Input("collective bytes on the wire", t.collective_bytes(), "B", "ring algorithm: all-reduce 2(n-1)/n x size");
    if (t.gpu_busy_s > 0)
      e.Input("collective bytes per GPU-second", t.collective_bytes() / t.gpu_busy_s, "B/s", "wire bytes / GPU busy time");
    e.Input("communication exposed", t.collective_exposed_share, "ratio", "exposed comm / comm of the timeline");
    if (t.copies_without_bytes > 0) e.Assume(std::to_string(t.copies_without_bytes) + " host copies have no byte count and are left out");
    if (t.collectives_without_sizes > 0)
      e.Assume(std::to_string(t.collectives_without_sizes) + " collectives have no message size and are left out");
    e.Assume("remote GPU: every host<->device copy and every API call crosses the link; collectives that use "
             "NVLink/P2P today cross it too (ranks spread over pool nodes)");
    e.Assume("a copy takes bytes / bandwidth + one latency; a collective ring moves 2(n-1)/n (all-reduce) or "
             "(n-1)/n of the message per rank and pays one latency per ring step");
    e.Assume("low end: copies and collectives hidden behind kernels today stay hidden and only synchronising "
             "calls wait a round trip; high end: every added second is on the critical path and every call waits");
  } else {
    e.Input("PCIe bytes/s", t.pcie_bytes_per_s, "B/s", "sampled tx + rx, mean");
    e.Input("NVLink bytes/s", t.nvlink_bytes_per_s, "B/s", "sampled tx + rx, mean");
    e.Input("local PCIe bytes/s per direction", t.local_pcie_bytes_per_s, "B/s", "device PCIe generation x width (0 unknown)");
    e.Assume("sampled rates carry no per-transfer latency or overlap: the high end is the share of each second "
             "the link would be busy with all traffic in one direction; the low end splits it over both "
             "directions and subtracts the time PCIe needs today");
  }
  return e;
}

}  // namespace kraken::disagg
