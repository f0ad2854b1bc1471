// `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` and its per-process
// siblings (--query-compute-apps, --query-accounted-apps, --query-retired-pages):
//
//   timestamp, name, pci.bus_id, memory.used [MiB], utilization.gpu [%]
//   2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 2566 MiB, 0 %
//
// Logs from -l/-lms repeat the header; rows of several GPUs interleave.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importers/nvidia_smi/capture_sections.h"
#include "importers/nvidia_smi/profile_builder.h"

namespace kraken::nvidia_smi {

struct CsvColumn {
  std::string name;  // "memory.used"
  std::string unit;  // "MiB" from "memory.used [MiB]"; empty when the header has none
};

// The columns of a header line, or nullopt when the line is not an nvidia-smi query header
// (its first columns are query fields such as timestamp/index/name, or most of its fields
// look like "utilization.gpu [%]").
std::optional<std::vector<CsvColumn>> ParseQueryHeader(std::string_view line);

// Reads one section of query CSV into the builder. Returns false when the section holds no
// header at all (rows without any header cannot be read).
bool ParseQueryCsv(const Section& section, ProfileBuilder& builder);

}  // namespace kraken::nvidia_smi
