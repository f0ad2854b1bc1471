// The packing simulation's randomness: std::mt19937_64 seeded with the experiment's seed
// (documented in docs/packing.md). The reference simulator draws from Go's math/rand,
// whose streams cannot be reproduced here, so results match it statistically (medians
// over seeds), not run by run. The helpers below are written out rather than taken from
// <random>'s distributions, whose algorithms differ between standard libraries: the same
// seed gives the same experiment with any compiler.
#pragma once

#include <cstdint>
#include <random>

namespace kraken::pack {

using PackRng = std::mt19937_64;

// Uniform integer in [0, n), n > 0 (rejection sampling: no modulo bias).
inline uint64_t UniformBelow(PackRng& rng, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % n;
}

// Uniform double in [0, 1) with 53 random bits.
inline double UniformUnit(PackRng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace kraken::pack
