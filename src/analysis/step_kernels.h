// Per-step kernel tables: the kernels that started inside each step's GPU window
// (timeline.h), grouped by name, heaviest first. The whole-trace table is
// kernel_summary.h's; `--window steps` restricts that one to the stepped span.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/intervals.h"
#include "model/profile.h"

namespace kraken {

struct StepKernelRow {
  std::string name;
  int64_t count = 0;
  TimeNs total_ns = 0;
  double pct_of_step_kernel_time = 0;
};

struct StepKernelTable {
  int64_t step_number = -1;
  Interval window;
  int64_t kernels = 0;
  TimeNs kernel_time_ns = 0;
  std::vector<StepKernelRow> top;  // by total time, descending; at most top_n
};

struct StepWindowRef {
  int64_t step_number = -1;
  Interval window;
};

std::vector<StepKernelTable> SummarizeKernelsPerStep(const Profile& profile, const std::vector<StepWindowRef>& steps,
                                                     size_t top_n = 5);

}  // namespace kraken
