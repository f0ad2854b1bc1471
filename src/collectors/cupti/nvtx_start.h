// KRAKEN_CUPTI_START_ON_NVTX=<range name>: the capture window starts when a range of that
// name is first pushed (e.g. "ProfilerStep#10"), as nsys' --capture-range=nvtx does.
// libcupti, not the tracer, receives NVTX's calls (the tracer forwards NVTX's injection
// entry point to it), and libcupti 13 installs its handlers into NVTX's function tables only
// after its initialization returned (without a driver it had not even asked for them). So
// libcupti is handed a copy of each NVTX instance's tables whose push entries point at the
// tracer's variables, and the tracer's hooks sit in NVTX's slots: each compares the pushed
// name (ASCII messages of nvtxRangePushA, nvtxRangePushEx, nvtxDomainRangePushEx) until the
// window started, then forwards to libcupti's handler. Nothing is changed without the
// setting; up to 8 NVTX instances per process can start the window.
#pragma once

#include <string>

#include "collectors/cupti/cupti_functions.h"

namespace kraken::cupti {

// Called on the pushing thread for a matching range: true when the window started (then
// the hooks stop comparing), false when it is too early (before KRAKEN_CUPTI_DELAY_MS).
using NvtxStartCallback = bool (*)();

// Runs libcupti's NVTX initialization for one NVTX instance and hooks its push handlers.
// Returns what libcupti returned.
int InitializeNvtxWithStartHook(NvtxInitializeInjection cupti_init, NvtxGetExportTable get_export_table,
                                const std::string& range_name, NvtxStartCallback on_start);

}  // namespace kraken::cupti
