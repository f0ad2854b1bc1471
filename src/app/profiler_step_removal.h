// Removing one ProfilerStep#N from a PyTorch-profiler (Kineto) Chrome trace, in place:
// the WorkloadProfiler's torch.profiler recorder (python/kraken/kernel_timeline.py) drops
// the range still open when the profiler stopped, which is not a step the caller marked.
//
// The edit is byte-faithful: every byte of the file except the removed events and one
// separating comma each is copied unchanged (numbers, escapes and bytes that are not
// UTF-8 stay as torch wrote them), so the result is valid JSON whenever the input was.
// The file is streamed twice (once to find the events, once to copy around them): memory
// is bounded by the largest event and the read buffers, not by the trace.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace kraken {

// Rewrites the trace at `path` without its complete events ("ph": "X") whose name is
// exactly "ProfilerStep#<step_number>" (torch.profiler writes a CPU range and, with CUDA,
// a GPU range of that name). The new file replaces `path` by a rename: `path` is never
// half-written. Returns whether any event was removed; a file that is not a JSON object
// with a "traceEvents" array is left as it is (false), for the importer to report. An
// unreadable or unwritable file is an error naming it.
Result<bool> RemoveProfilerStep(const std::string& path, int64_t step_number);

}  // namespace kraken
