// Deterministic synthetic series for the temporal tests: a small linear congruential
// generator (the same numbers on every platform, unlike <random>'s distributions).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "analysis/temporal/regular_grid.h"

namespace kraken::temporal::testing {

class Noise {
 public:
  explicit Noise(uint64_t seed) : state_(seed) {}
  double Uniform() {  // [0, 1)
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state_ >> 11) / 9007199254740992.0;
  }
  double Gaussian() {  // Box-Muller
    double u = Uniform() + 1e-12, v = Uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  uint64_t state_;
};

inline RegularGrid MakeGrid(std::vector<double> values, int64_t step, int64_t start = 0) {
  RegularGrid g;
  g.start = start;
  g.step = step;
  g.samples = values.size();
  g.observed.assign(values.size(), 1);
  g.values = std::move(values);
  return g;
}

constexpr int64_t kMinuteNs = 60'000'000'000;
constexpr int64_t kHourNs = 60 * kMinuteNs;
constexpr int64_t kDayNs = 24 * kHourNs;

}  // namespace kraken::temporal::testing
