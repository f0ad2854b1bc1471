// Bandwidth of memcpy and memset operations by kind (H2D, D2H, D2D, P2P, memset), as
// Holistic Trace Analysis reports it (get_memory_bw_time_series/get_memory_bw_summary):
// each operation moves `bytes` in its duration; the time series is the sum of the
// bandwidths of the operations of a kind running at each moment (a step function), and the
// summary describes the non-zero points. kraken computes an operation's bandwidth as
// bytes / duration (HTA reads Kineto's "memory bandwidth (GB/s)" arg, the same quotient)
// and skips operations with unknown size; HTA rounds 0-duration operations up to 1 us,
// kraken leaves them out of the rates (they still count).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace kraken {

struct BandwidthPoint {
  TimeNs time_ns = 0;
  double gb_per_s = 0;  // from this time until the next point
};

struct CopyKindBandwidth {
  std::string kind;  // "h2d", "d2h", "d2d", "p2p", "h2h", "memset", "unknown"
  int64_t operations = 0;
  int64_t bytes = 0;
  TimeNs busy_ns = 0;          // sum of durations
  double mean_gb_per_s = 0;    // bytes / busy time
  double p50_gb_per_s = 0;     // of the per-operation rates
  double max_gb_per_s = 0;     // highest concurrent total (time series peak)
  std::vector<BandwidthPoint> series;  // at most `max_points`
};

struct MemcpyBandwidthOptions {
  size_t max_points = 400;
};

std::vector<CopyKindBandwidth> AnalyzeMemcpyBandwidth(const Profile& profile,
                                                      const MemcpyBandwidthOptions& options = {});

}  // namespace kraken
