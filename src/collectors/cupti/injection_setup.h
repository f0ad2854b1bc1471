// The steps of starting the tracer in a process, apart from the entry points: the trace
// session for this process (file name, clock, header) and turning on CUPTI's activity kinds.
#pragma once

#include <memory>
#include <string>

#include "collectors/cupti/cupti_functions.h"
#include "collectors/cupti/trace_session.h"
#include "collectors/cupti/tracer_config.h"

namespace kraken::cupti {

// One line on stderr: "kraken-cupti: <line>" (a single write, so lines of several traced
// processes do not interleave).
void Say(const std::string& line);

// Creates this process's trace file (KRAKEN_CUPTI_OUTPUT resolved for its pid) and the
// session writing it, with CUPTI's clock mapped to Unix time.
std::unique_ptr<TraceSession> StartSession(const LoadedCupti& cupti, const TracerConfig& config, std::string* error);

// For a process the tracer cannot record (no libcupti): a trace without events whose
// closing member "kraken_cupti_error" says why, so that whoever reads the traces (kraken
// profile --kernels) can tell. Returns its path, or "" when it cannot be written either.
std::string WriteErrorTrace(const TracerConfig& config, const std::string& error);

// Enables the activity kinds: kernels (required), copies, sets, synchronizations, devices,
// contexts, NVTX markers, device memory allocations (optional: a libcupti refusing them is
// noted in the closing members), and the runtime/driver calls selected by config.api (by id when
// libcupti can, else all and filtered in the converter). "" on success, else why kernels
// cannot be recorded, with the likely cause (no driver in the process, version mismatch).
// `late`: at the start of a delayed capture window, when the devices and contexts exist
// already: their records are dumped (cuptiActivityEnableAndDump) where libcupti can.
std::string EnableActivities(const LoadedCupti& cupti, const TracerConfig& config, bool late = false);

// The end of the capture window: every kind EnableActivities may have enabled goes off, so
// the process runs on at no tracing cost.
void DisableActivities(const LoadedCupti& cupti);

// Before a delayed window: nothing is enabled, except the device and context records when
// libcupti cannot dump them later (no cuptiActivityEnableAndDump, before CUDA 12.?): they
// are one record per GPU and context, made while CUDA starts, and give the trace its
// deviceProperties.
void PrepareDelayedWindow(const LoadedCupti& cupti);

// KRAKEN_CUPTI_COUNTERS=1: starts the per-kernel counters (range_profiler.h) of `session`,
// which then writes their ranges and footer members. "" on success, else why they are
// unavailable (also in the footer as kraken_cupti_counters_error); kernel tracing goes on.
std::string StartCounters(const LoadedCupti& cupti, const TracerConfig& config, TraceSession* session);

}  // namespace kraken::cupti
