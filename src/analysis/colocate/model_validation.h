// How far the co-location model's slowdowns were from measured ones on real hardware, per
// sharing mode: the one table the predictions quote (text, JSON, API), so that a reader
// knows how much to trust a mode's numbers. The figures come from docs/validation.md
// ("Co-location: measured vs predicted"), which scripts/gpu_validate/ingest.py rewrites
// from the recorded runs; the golden test colocate_h100_golden_test.cc holds the model to
// them, so a figure here cannot silently drift from what the model does.
#pragma once

#include "model/colocation.h"

namespace kraken {

// The record that applies to `mode` as predicted (its SM shares decide whether an MPS
// prediction had measured counterparts); `validated` false when none did.
ModeValidation ValidationFor(const ModePrediction& mode);

// One line for humans: "validated on ...: mean |error| X %, max Y % over N pairs (...)" or
// "not validated: ...".
std::string ValidationText(const ModeValidation& v);

}  // namespace kraken
