// Derives an NVML capture from a real nvidia-smi capture (nvidia_gpu_exporter's format:
// -L, -q, --query-gpu, --query-compute-apps, pmon, dmon, topo -m, nvlink -s per phase),
// for nodes kraken could not record on. The capture's header says which file it came from
// (name and sha256) and which values are derived or missing; nothing is invented: a value
// nvidia-smi did not print is left out and replays as NOT_SUPPORTED.
#pragma once

#include <string>

#include "base/status.h"
#include "collectors/nvml/capture.h"

namespace kraken::nvml {

struct SmiConversionOptions {
  // Copies of the node's GPUs (8 makes an 8-GPU node from a 1-GPU capture, for benches):
  // copy k gets index k, a UUID and MIG UUIDs ending in k, PCI device number + k, minor
  // number k; values and processes are the same on every copy.
  int copies = 1;
};

Result<Capture> CaptureFromNvidiaSmi(const std::string& path, const SmiConversionOptions& options = {});

// The same from the capture's text already read; `path` only names it in errors and notes.
Result<Capture> CaptureFromNvidiaSmiText(const std::string& path, const std::string& text,
                                         const SmiConversionOptions& options = {});

}  // namespace kraken::nvml
