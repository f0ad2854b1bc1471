// The sections of kraken's profile export (keys in docs/store.md, written by
// src/report/profile_export.cc) and the reading of one record of each.
#pragma once

#include <string_view>

#include "importers/kraken_json/kraken_json_fields.h"

namespace kraken::kraken_json {

// The arrays of the export, streamed one record at a time.
enum class Section {
  kDevices,
  kKernels,
  kMemoryOps,
  kCpuOps,
  kRuntimeCalls,
  kSteps,
  kSyncs,
  kKernelCounters,
  kCollectives,
  kProfilerRanges,
  kMetricDeclarations,
  kKernelLabels,
  kSeries,
};

struct SectionKey {
  std::string_view key;  // "kernels"
  Section section;
};
inline constexpr SectionKey kSectionKeys[] = {
    {"devices", Section::kDevices},
    {"kernels", Section::kKernels},
    {"memory_ops", Section::kMemoryOps},
    {"cpu_ops", Section::kCpuOps},
    {"runtime_calls", Section::kRuntimeCalls},
    {"steps", Section::kSteps},
    {"syncs", Section::kSyncs},
    {"kernel_counters", Section::kKernelCounters},
    {"collectives", Section::kCollectives},
    {"profiler_ranges", Section::kProfilerRanges},
    {"metric_declarations", Section::kMetricDeclarations},
    {"kernel_labels", Section::kKernelLabels},
    {"series", Section::kSeries},
};

// Appends the record `v` to the profile's vector of `section`; false, with nothing
// appended, when the record is unreadable.
bool AppendRecord(Section section, od::value& v, Profile& profile, ReadContext& context);

// The "metadata" object; false when it is not one or a field has the wrong type.
bool ReadMetadata(od::value& v, ProfileMetadata& metadata, ReadContext& context);

}  // namespace kraken::kraken_json
