#include "analysis/colocate/model_validation.h"

#include <algorithm>

#include "base/text_table.h"

namespace kraken {
namespace {

// Measured ground truth: examples/colocation/pairs.csv (6 pairs x 2 workloads per mode,
// one H100 SXM, run 1 of scripts/gpu-validate.sh); error = predicted / measured - 1 of
// each workload's slowdown. Update together with docs/validation.md (ingest.py).
struct ValidationRow {
  SharingMode mode;
  bool uncapped_mps;  // MPS rows: measured without CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  ModeValidation record;
};

const ValidationRow kValidated[] = {
    {SharingMode::kTimeSlice, false,
     {true, "NVIDIA H100 80GB HBM3 (132 SMs)", 6, 12, 9.5, 14.4, "docs/validation.md, examples/colocation/pairs.csv"}},
    {SharingMode::kMps, true,
     {true, "NVIDIA H100 80GB HBM3 (132 SMs)", 6, 12, 9.6, 25.2, "docs/validation.md, examples/colocation/pairs.csv"}},
};

bool Uncapped(const ModePrediction& m) {
  return std::all_of(m.sm_shares.begin(), m.sm_shares.end(), [](double s) { return s >= 1 - 1e-9; });
}

}  // namespace

ModeValidation ValidationFor(const ModePrediction& m) {
  for (const ValidationRow& row : kValidated) {
    if (row.mode != m.mode) continue;
    if (m.mode == SharingMode::kMps && row.uncapped_mps != Uncapped(m)) continue;
    return row.record;
  }
  ModeValidation none;
  none.reference = m.mode == SharingMode::kMps ? "MPS was measured only without an SM cap"
                                               : "no measured co-location on real hardware for this mode";
  return none;
}

std::string ValidationText(const ModeValidation& v) {
  if (!v.validated) return "not validated on real hardware (" + v.reference + ")";
  return "validated on an " + v.device + ": mean |error| " + FormatFixed(v.mean_abs_error_pct, 1) + " %, max " +
         FormatFixed(v.max_abs_error_pct, 1) + " % over " + std::to_string(v.pairs) + " pairs (" +
         std::to_string(v.workloads) + " slowdowns; " + v.reference + ")";
}

}  // namespace kraken
