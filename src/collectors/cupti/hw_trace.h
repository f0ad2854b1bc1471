// Blackwell's hardware kernel timestamps (cuptiActivityEnableHWTrace, CUPTI 12.8+): kernel
// start and end come from the GPU's Hardware Event System instead of CUPTI's instrumentation
// of every kernel. CUPTI takes the switch only after the driver is initialized and before
// the first context exists, while the tracer is loaded from inside cuInit: so the tracer
// subscribes to CUPTI's resource callbacks and flips the switch in CU_INIT_FINISHED, as
// NVIDIA's injection samples do. CUPTI allows one subscriber per process, and the
// application's own profiler (torch.profiler) may want it later: the subscription is ended
// right after, from the writer thread. On other GPUs (CUPTI_ERROR_NOT_SUPPORTED), with
// another subscriber, or with a libcupti without the function, kernels are timed by
// instrumentation as before, silently.
#pragma once

#include <string>

#include "collectors/cupti/cupti_functions.h"
#include "collectors/cupti/kineto_writer.h"

namespace kraken::cupti {

// Subscribes for CU_INIT_FINISHED when `wanted` and libcupti has cuptiActivityEnableHWTrace.
// `cupti` must outlive the process's CUDA use (the tracer's is never destroyed).
void RequestHardwareTimestamps(const LoadedCupti& cupti, bool wanted);

// Ends the subscription once the switch was tried, 2 s after the request whatever
// happened, or now with `now` (the writer stops: no later call). Cheap when there is
// nothing to do. Not from within a CUPTI callback.
void ReleaseHardwareTimestampsSubscription(bool now = false);

// A deferred attach (cupti_detach.h) makes no CUPTI call inside cuInit, so the switch is
// not tried; the closing members say why.
void SkipHardwareTimestampsForDeferredAttach();

// The trace's closing members: "kraken_cupti_timestamps": "hw" | "sw", and why the
// hardware was not used when CUPTI refused it for another reason than NOT_SUPPORTED.
JsonMembers HardwareTimestampsMembers();

}  // namespace kraken::cupti
