// Helpers the analysis tests share (one definition each, so the suites can be compiled as
// unity builds).
#pragma once

#include <cmath>
#include <cstdint>

#include "model/profile.h"

namespace kraken::testing {

// Appends a ProfilerStep annotation.
inline void AddStep(Profile* p, int64_t number, TimeNs start, TimeNs duration) {
  StepAnnotation step;
  step.step_number = number;
  step.start_ns = start;
  step.duration_ns = duration;
  p->steps.push_back(step);
}

// A percentage rounded to 2 decimals, as the reference tools print it.
inline double Round2(double pct) { return std::round(pct * 100) / 100; }

}  // namespace kraken::testing
