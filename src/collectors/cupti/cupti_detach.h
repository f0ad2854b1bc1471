// CUPTI attached for the capture window only (KRAKEN_CUPTI_DETACH, on by default). Once any
// CUPTI function has run in a process, CUPTI stays hooked into every CUDA call until
// cuptiFinalize, kinds enabled or not: PyTorch measured 10-20 % of training throughput lost
// after its profiler had finished for want of that call (pytorch/pytorch#146604), and
// phase 8 measured the idle tracer at +10 to +12 % on a loop of small kernels (H200, runs 8
// and 10). So a delayed window makes its first CUPTI call when it opens (injection.cc), and
// a window that ends before the process does detaches CUPTI afterwards, the way
// cupti_activity.h documents for cuptiFinalize: from the exit callsite of the application's
// next CUDA driver or runtime call, reached through a callback subscription made for it.
#pragma once

#include <string>

#include "collectors/cupti/cupti_functions.h"

namespace kraken::cupti {

// Subscribes to the runtime and driver API callbacks; the next API exit on any thread
// calls cuptiFinalize once. "" when requested; else why not (CUPTI unchanged). Call after
// the last CUPTI call of the trace, never from a CUPTI callback. `cupti` outlives the process.
std::string RequestDetach(const LoadedCupti& cupti, bool say_when_done);

// Once RequestDetach succeeded: nothing may hand libcupti more work (NVTX's injection).
bool CuptiDetachRequested();

// Why CUPTI cannot be detached in this process, "" when it can: a libcupti without
// cuptiFinalize, or one that handles the NVTX ranges (its NVTX handlers stay installed).
std::string DetachObstacle(const LoadedCupti& cupti, bool nvtx_forwarded);

}  // namespace kraken::cupti
