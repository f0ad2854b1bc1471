// The notes at the head of a capture derived from nvidia-smi: which file it came from, what
// each value was taken from, what is derived and what is missing (smi_capture_converter.cc).
#pragma once

#include <vector>

#include "collectors/nvml/capture.h"
#include "collectors/nvml/smi_capture_reading.h"

namespace kraken::nvml::smi_capture {

// Appends the notes to `capture.notes`; `capture.info` must already name the source file
// and its sha256, and `phases` hold their frame counts.
void WriteNotes(const std::vector<Phase>& phases, int copies, Capture& capture);

}  // namespace kraken::nvml::smi_capture
