// The counters of a Kineto "cuda_profiler_range" event (PyTorch's CUPTI range profiler,
// kraken's tracer with KRAKEN_CUPTI_COUNTERS=1) as KernelCounters: FLOPs from the SASS
// instruction counts (add + mul + 2 * fma per precision), DRAM bytes and the
// speed-of-light throughputs, by their Nsight Compute / CUPTI metric names.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "model/trace_events.h"

namespace kraken::kineto {

KernelCounters RangeCountersFromArgs(const std::vector<std::pair<std::string_view, double>>& numeric_args);

}  // namespace kraken::kineto
