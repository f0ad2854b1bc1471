// `kraken profile --kernels`: the run's workload type and bound from its kernel timeline.
// NVML samples cannot tell training from inference, and their GPM bound is a median over
// every pass of the run (start-up and idle passes included); the kernels the tracer
// recorded decide both as `kraken analyze` does. Pure: no I/O.
#pragma once

#include "model/profile.h"
#include "profiling/run_summary.h"

namespace kraken::profiling {

// Replaces `summary`'s workload type and bound (and their reasons) with what the kernels
// of `timeline` show, when it has any; the bound's reason keeps NVML's verdict beside it.
// Leaves `summary` as it is for a timeline without kernels.
void ApplyKernelTimeline(const Profile& timeline, RunSummary* summary);

}  // namespace kraken::profiling
