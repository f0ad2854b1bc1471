// Network sensitivity: how much slower a workload would run if its GPU sat behind a
// remote link (GPU disaggregation: the GPU in a pool, the host across the network).
// Every byte that crosses PCIe between host and GPU today, every runtime API call, and
// every collective byte (today over NVLink or PCIe peer-to-peer inside the node) would
// cross the link instead. The model (docs/disaggregation.md):
//   host copy      remote = bytes / bandwidth + latency        extra = max(0, remote - measured)
//   API call       remote = 2 x latency (a round trip) for calls the host waits on
//   collective     remote = wire bytes / bandwidth + hops x latency, extra as for copies
//   sampled rates  busy share of the link = (PCIe + NVLink bytes/s) / bandwidth
// slowdown = added time / wall time of the window, as a range: the low end keeps the
// overlap the trace shows (copies hidden behind kernels stay hidden; only synchronising
// calls wait), the high end puts every added second on the critical path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/characterize.h"
#include "analysis/disagg/remote_link.h"
#include "analysis/explanation.h"
#include "model/profile.h"
#include "model/workload_demand.h"

namespace kraken::disagg {

// One transfer that would cross the link.
struct Transfer {
  double bytes = 0;
  double measured_s = 0;  // how long it took locally
  int32_t hops = 1;       // latencies it pays (1 for a copy; ring steps for a collective)
};

// What crosses the host/GPU boundary, independent of any link.
struct TrafficProfile {
  std::string source_kind;  // "trace" or "samples"
  double span_s = 0;        // wall time of the window measured
  double gpu_busy_s = 0;
  // From a trace.
  std::vector<Transfer> host_copies;      // H2D and D2H memcpy with a byte count
  double host_copy_exposed_share = 1;     // of the copies' time not overlapped by kernels
  int64_t copies_without_bytes = 0;
  int64_t pageable_copies = 0;
  int64_t api_calls = 0;                  // runtime API calls (driver calls when none)
  int64_t sync_calls = 0;                 // calls the host waits on (synchronize, blocking memcpy)
  std::vector<Transfer> collectives;      // NCCL/RCCL kernels with message sizes
  double collective_exposed_share = 1;    // exposed comm / comm of the timeline
  int64_t collectives_without_sizes = 0;
  // From sampled rates.
  bool has_rates = false;
  double pcie_bytes_per_s = 0;
  double nvlink_bytes_per_s = 0;
  double local_pcie_bytes_per_s = 0;      // the device's PCIe link (gen x width); 0 unknown

  double host_bytes() const;
  double collective_bytes() const;
  bool measured() const;
};

TrafficProfile ExtractTraffic(const Profile& profile, const WorkloadReport& report, const WorkloadDemand& demand);

struct LinkComponent {
  std::string name;  // "host copies", "API calls", "collectives", "sampled PCIe + NVLink"
  int64_t operations = 0;
  double bytes = 0;
  double added_lo_s = 0;  // seconds added per window, low and high end
  double added_hi_s = 0;
};

struct LinkSensitivity {
  RemoteLink link;
  bool measured = false;
  std::vector<LinkComponent> components;
  double slowdown_lo = 0;  // added time / wall time
  double slowdown_hi = 0;
  double slowdown_mid() const { return (slowdown_lo + slowdown_hi) / 2; }
  // The sampled traffic needs more than the link's bandwidth.
  bool saturated = false;
  double required_bytes_per_s = 0;
};

LinkSensitivity EvaluateLink(const TrafficProfile& traffic, const RemoteLink& link);

// Inputs and assumptions of the traffic model, for --explain.
Explanation ExplainTraffic(const TrafficProfile& traffic);

}  // namespace kraken::disagg
