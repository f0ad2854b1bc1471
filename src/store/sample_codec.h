// Packs a run of samples of one series into two compact byte strings, the unit the
// store writes (one row of sample_blocks per block; docs/store.md says why blocks and
// not one row per sample).
//   times:  zigzag varints of t0, t1-t0, then the delta of deltas. A sampler at a steady
//           rate gives deltas of deltas near zero: one or two bytes per sample.
//   values: each value's IEEE-754 bits XOR the previous value's; one header byte holds
//           how many zero bytes lead and trail the XOR, then the bytes in between. An
//           unchanged value costs one byte; integer-valued gauges a few.
// Both are exact: decoding gives the same int64 times and the same double bits.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/series.h"

namespace kraken::store {

struct EncodedBlock {
  std::string times;
  std::string values;
  int64_t count = 0;
  TimeNs min_time_ns = 0;
  TimeNs max_time_ns = 0;
  // Over the non-NaN values (NaN when all are NaN); the sum includes every value.
  double min_value = 0;
  double max_value = 0;
  double sum_value = 0;
};

EncodedBlock EncodeSamples(std::span<const Sample> samples);

// Appends the `count` samples held by `times` and `values` to `out`. A blob that does
// not decode to exactly `count` samples is InvalidInput (a damaged database).
Status DecodeSamples(std::string_view times, std::string_view values, int64_t count, std::vector<Sample>* out);

}  // namespace kraken::store
