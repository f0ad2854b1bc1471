// A profiling session's kernel timeline (SessionSettings::kernel_capture): the kernels that
// kraken's CUPTI tracer records for this process. The CUDA driver injects the tracer only
// when a process starts (CUDA_INJECTION64_PATH, docs/kernel-capture.md), so a session can
// only read what the tracer writes: its incremental Kineto trace of this process, at the
// path its settings (KRAKEN_CUPTI_OUTPUT) give, flushed every KRAKEN_CUPTI_FLUSH_MS.
#pragma once

#include <functional>

#include "base/status.h"
#include "model/profile.h"
#include "profiling/kernel_capture.h"

namespace kraken::app {

// Reads an environment variable (std::getenv in the session; a map in tests).
using EnvironmentReader = std::function<const char*(const char*)>;

// Ok when this process runs with kraken's tracer injected (the file CUDA_INJECTION64_PATH
// names starts with libkraken_cupti), else Unsupported saying how to start it so.
Status CheckKernelTracerInjected(const EnvironmentReader& getenv);

// The tracer's trace of process `pid` (absolute) and its flush period, from the same
// settings and functions the tracer uses (collectors/cupti/tracer_config.h).
struct KernelTraceLocation {
  std::string path;
  int64_t flush_interval_ms = 0;
};
KernelTraceLocation LocateKernelTrace(const EnvironmentReader& getenv, int64_t pid);

// Keeps the kernels, copies, runtime calls, CPU ops, syncs, steps and ranges of `events`
// that overlap [start_ns, end_ns] (an event of a long-running process from before the
// session is not the session's), and of its series (the tracer's device memory) the level
// at the start and the samples within.
void KeepTimelineWithin(TimeNs start_ns, TimeNs end_ns, Profile* events);

// At the session's stop: waits one flush period of the tracer (plus a margin for the
// write) so that the kernels of the session's last moments are in the file, imports the
// trace, keeps what overlaps [start_ns, stop_ns] and returns it in `events` with the
// summary `kraken profile --kernels` reports. A missing or unreadable trace is a problem
// line and a note, not an error: the session keeps its NVML samples.
profiling::KernelCaptureSummary CollectSessionKernels(const KernelTraceLocation& trace, TimeNs start_ns,
                                                      TimeNs stop_ns, Profile* events);

}  // namespace kraken::app
