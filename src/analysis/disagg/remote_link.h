// A remote link a disaggregated GPU (or its host) would sit behind: bandwidth and one-way
// latency, as `--link 100Gbps,5us` gives them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::disagg {

struct RemoteLink {
  double bytes_per_s = 0;  // usable bandwidth in one direction
  double latency_s = 0;    // one way, per transfer or per call
  std::string label;       // "100Gbps,5us"
};

// "100Gbps,5us", "25Gb/s,2us", "12.5GB/s,800ns", "400gbps,10us". Bandwidth units: Gbps,
// Gb/s, Mbps, Tbps (bits) or GB/s, MB/s (bytes); latency: ns, us, ms, s.
Result<RemoteLink> ParseRemoteLink(std::string_view text);

// The links `kraken disagg` models when none are given: 100 Gb/s with 5 us (the scored
// one), 25 Gb/s with 10 us and 400 Gb/s with 2 us (see docs/disaggregation.md).
std::vector<RemoteLink> DefaultRemoteLinks();

}  // namespace kraken::disagg
