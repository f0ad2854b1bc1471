// Prices of GPU-sharing pod sizes from the bin-packing (cutting-stock) LP over the
// typical sharing sizes: how much of one GPU each size "deserves" when the typical mix is
// packed as tightly as possible.
//
//   LP:   maximise  sum_s demand_s y_s
//         s.t.      sum_s count_s(P) y_s <= 1   for every pattern P (a multiset of sizes
//                                               that fits in 1000 milli), y >= 0.
// This is the dual of "cover the typical demand with the fewest GPUs". Patterns are added
// as cutting planes found by an unbounded knapsack over the current prices, so the LP
// never holds more than the patterns it needs.
//
// gap_value(r) = the most price that sizes fitting in r milli can collect (knapsack), with
// a whole free GPU worth exactly 1. Putting a pod of size s into a GPU with r free loses
//   loss(r, s) = 1000 (gap_value(r) - price(s) - gap_value(r - s))  >= 0   GPU milli,
// zero when the pod follows an optimal packing pattern (650 into a GPU holding 320, 470
// into one holding 470), large when it strands what is left (320 into the 530 milli a 470
// left: the 210 that remain fit no frequent size). Sizes outside the typical set are
// priced at the value of the typical sizes they displace, gap_value(s).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/pack/pack_problem.h"

namespace kraken::pack {

struct PackingPrices {
  std::vector<int32_t> sizes;      // distinct per-GPU milli of the typical sharing shapes, ascending
  std::vector<double> demand;      // their share of the typical sharing pods (sums to 1)
  std::vector<double> price;       // LP dual price per size, in GPUs
  std::vector<double> gap_value;   // index 0..1000, in GPUs; gap_value[1000] = 1
  int32_t patterns = 0;            // pattern constraints the LP ended with
  double packed_gpus_per_pod = 0;  // LP optimum: GPUs per typical sharing pod in the tightest packing

  double Price(int32_t size) const;
  // GPU milli of packing value lost by putting a pod of `size` on a GPU with `gap` free.
  double Loss(int32_t gap, int32_t size) const;
};

PackingPrices ComputePackingPrices(const std::vector<TypicalPod>& typical);

}  // namespace kraken::pack
