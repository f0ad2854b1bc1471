// The small key facts around the samples: `nvidia-smi -L` (GPUs with UUIDs and their MIG
// devices with profiles), `nvidia-smi --version`, and a capture's own preamble
// ("collected_at:   2026-07-14T08:12:38Z").
#pragma once

#include <string_view>

#include "importers/nvidia_smi/capture_sections.h"
#include "importers/nvidia_smi/profile_builder.h"

namespace kraken::nvidia_smi {

// True for "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)".
bool IsGpuListLine(std::string_view line);

// Reads a -L section when every line of it is a GPU or MIG line ("  MIG 3g.40gb  Device  0:
// (UUID: MIG-...)"); returns false and changes nothing otherwise (nvlink -s also starts
// with GPU lines).
bool ParseGpuList(const Section& section, ProfileBuilder& builder);

// Reads "NVIDIA-SMI version : 590.48.01" style output into attributes; false if it is not.
bool ParseVersion(const Section& section, ProfileBuilder& builder);

// Keeps a capture preamble's "key: value" lines as attributes "capture.<key>".
void ParseCapturePreamble(const Section& section, ProfileBuilder& builder);

}  // namespace kraken::nvidia_smi
