// MPS without an SM cap: what a co-runner's grids of at least one block per SM cost a
// workload. The block dispatcher places grids in launch order, so a kernel launched while
// such a grid runs gets SMs only once that grid's last blocks are placed: it waits about
// the rest of that grid, not one block's time (the old "SM turnover / 2"). The
// co-runner's kernels then run in the gaps and at the boundaries between such grids
// (docs/colocation.md, "MPS").
#pragma once

#include "model/colocation.h"

namespace kraken {

struct SmQueueEstimate {
  bool modelled = false;       // false: a figure is missing (kernel counts of either)
  double blocked_share = 0;    // x = q x o's hold share: w's busy time o holds the dispatcher
  // A kernel of w let in at the end of a hold runs beside o's next grid when that grid's
  // blocks fit beside it on the SMs: the two share each SM's issue slots evenly, so it
  // takes twice as long. c = 1 + o's co-resident share of its held time (1 for a GEMM
  // whose block takes every register, 2 for a many-block elementwise grid).
  double corun_factor = 1;
  // Bound 1, every kernel of w that finds o holding waits out the residual hold R_o and
  // then runs beside o's next grid: extra per busy second k_w x x x R_o + x (c - 1).
  double wait_stretch = 0;
  // Bound 2, w's queue never empties: it gets the time o leaves (1 - x) plus one kernel of
  // its own (mean 1/k_w, taking c times as long) at each end of a hold (q x o's rate of
  // holding kernels).
  double available = 1;        // GPU time per second open to w
  double slot_stretch = 0;     // extra per busy second: (u_w / available - 1) / u_w, >= 0
  // Throughput: both bounds overestimate (bound 1 ignores that w's later kernels queue up
  // during a wait and catch up in the gaps; bound 2 that w may run more than one kernel per
  // boundary): the smaller one. 0 when the time left suffices (u_w <= available).
  double throughput_stretch = 0;
  // One request of w: its kernels are launched back to back, so within the request w is
  // backlogged (bound 2 with busy 1): min(bound 1, 1 / available - 1) when available < 1;
  // bound 1 when the holds leave it all of the time (its kernels are long).
  double latency_stretch = 0;
};

// The other side of the queue: when w holds the dispatcher and o waits, each of o's
// kernels dispatched at the end of one of w's holds delays w's next kernel by o's mean
// kernel (1/k_o). Per busy second of w: min(w's holds per second, o's kernels arriving
// during them, q x k_o x w's hold share) / k_o. 0 when w is itself backlogged behind o
// (its open time already counts those kernels) or a figure is missing.
double InterleaveStretch(const ColocationWorkload& w, const SmQueueEstimate& w_behind_o, const ColocationWorkload& o,
                         double q);

// `busy`: w's GPU busy share of its time alone; `q`: P(o busy | w busy).
SmQueueEstimate EstimateSmQueue(const ColocationWorkload& w, double busy, const ColocationWorkload& o, double q);

}  // namespace kraken
