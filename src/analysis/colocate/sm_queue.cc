#include "analysis/colocate/sm_queue.h"

#include <algorithm>


namespace kraken {

SmQueueEstimate EstimateSmQueue(const ColocationWorkload& w, double busy, const ColocationWorkload& o, double q) {
  SmQueueEstimate e;
  if (w.kernels_per_busy_s <= 0 || o.kernels_per_busy_s <= 0) return e;
  e.modelled = true;
  if (o.sm_hold_share <= 0 || o.sm_hold_residual_s <= 0 || q <= 0) return e;  // o never holds it
  e.blocked_share = std::min(1.0, q * o.sm_hold_share);
  e.corun_factor = 1 + std::clamp(o.sm_hold_coresident_share, 0.0, 1.0);
  e.wait_stretch = w.kernels_per_busy_s * e.blocked_share * o.sm_hold_residual_s +
                   e.blocked_share * (e.corun_factor - 1);
  double own_kernel_s = 1.0 / w.kernels_per_busy_s;
  e.available = 1 - e.blocked_share + q * o.sm_hold_kernels_per_busy_s * own_kernel_s / e.corun_factor;
  if (busy > 0 && e.available < busy) e.slot_stretch = (busy / std::max(e.available, 1e-9) - 1) / busy;
  e.throughput_stretch = std::min(e.wait_stretch, e.slot_stretch);
  // One request's kernels are launched back to back: within it w is backlogged (busy 1)
  // when the holds leave it less than all of the time; otherwise each kernel just waits.
  e.latency_stretch = e.available < 1 ? std::min(e.wait_stretch, 1 / std::max(e.available, 1e-9) - 1) : e.wait_stretch;
  return e;
}

double InterleaveStretch(const ColocationWorkload& w, const SmQueueEstimate& w_behind_o, const ColocationWorkload& o,
                         double q) {
  if (w_behind_o.slot_stretch > 0 || o.kernels_per_busy_s <= 0 || w.sm_hold_kernels_per_busy_s <= 0) return 0;
  double served = std::min(w.sm_hold_kernels_per_busy_s, q * o.kernels_per_busy_s * w.sm_hold_share);
  return served / o.kernels_per_busy_s;
}

}  // namespace kraken
