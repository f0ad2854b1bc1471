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

// CUPTI's activity buffer callbacks (injection.cc's), for a deferred attach to register.
struct BufferCallbacks {
  CUpti_BuffersCallbackRequestFunc requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed = nullptr;
};

// Creates this process's trace file (KRAKEN_CUPTI_OUTPUT resolved for its pid) and the
// session writing it, with CUPTI's clock mapped to Unix time. With `deferred` (a delayed
// window that attaches CUPTI when it opens, cupti_detach.h) no CUPTI function runs now: the
// session's attach hook sets CUPTI up at the window's start and registers those callbacks.
// A window that ends before the process asks for CUPTI's detach (config.detach).
std::unique_ptr<TraceSession> StartSession(const LoadedCupti& cupti, const TracerConfig& config,
                                           const BufferCallbacks* deferred, std::string* error);

// Whether CUPTI is attached when the capture window opens rather than in cuInit
// (config.detach, a delay, no NVTX range to start on, and cuptiActivityEnableAndDump to get
// the device records made before).
bool AttachesAtWindowStart(const TracerConfig& config, const CuptiFunctions& functions);

// NVTX's injection for one NVTX instance (each library built with NVTX is one). Handed to
// libcupti now, or, while a window that attaches CUPTI at its start has not opened, when it
// opens (libcupti's NVTX initialization attaches CUPTI). libcupti then handles the ranges,
// and CUPTI is not detached after the window (its NVTX handlers would attach it again).
// Returns what NVTX is to be told: 1, or libcupti's answer.
int ForwardNvtxToCupti(const LoadedCupti& cupti, const TracerConfig& config, NvtxGetExportTable get_export_table);
// The same note for NVTX handed to libcupti another way (a window starting on an NVTX range).
void NoteNvtxForwarded();

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
