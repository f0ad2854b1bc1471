// Edits of trace files through the C API: the request layer's RemoveProfilerStep
// (app/profiler_step_removal.h), for the Python WorkloadProfiler's torch.profiler trace.
#include "app/profiler_step_removal.h"
#include "capi/call.h"

namespace kraken::capi {
namespace {

Outcome RemoveStep(const char* trace_path, int64_t step_number, int* out_removed) {
  if (trace_path == nullptr) return Outcome::BadArgument("the trace path is NULL");
  if (out_removed == nullptr) return Outcome::BadArgument("out_removed is NULL");
  *out_removed = 0;
  KRAKEN_ASSIGN_OR_RETURN(bool removed, RemoveProfilerStep(trace_path, step_number));
  *out_removed = removed ? 1 : 0;
  return Status::Ok();
}

}  // namespace
}  // namespace kraken::capi

extern "C" {

kraken_status kraken_remove_profiler_step(const char* trace_path, int64_t step_number, int* out_removed) {
  return kraken::capi::Perform([&] { return kraken::capi::RemoveStep(trace_path, step_number, out_removed); });
}

}  // extern "C"
