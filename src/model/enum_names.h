// The stable spellings of the model's enums in kraken's own JSON (the profile export and
// the documents that repeat its parts), and their reverse: the exporter writes these
// names and the kraken-json importer reads them back, so both take them from here.
#pragma once

#include <optional>
#include <string_view>

#include "model/device.h"
#include "model/series.h"
#include "model/trace_events.h"

namespace kraken {

const char* VendorName(Vendor vendor);                // nvidia, amd, meta-mtia, unknown
const char* CopyDirectionName(CopyDirection direction);  // host_to_device, ..., unknown
const char* CpuOpCategoryName(CpuOpCategory category);   // operator, user_annotation, ...
const char* MemoryOpKindName(MemoryOpKind kind);         // memcpy, memset
const char* SampleAxisName(SampleAxis axis);             // time_ns, iteration

// nullopt for a name none of the above spells.
std::optional<Vendor> VendorFromName(std::string_view name);
std::optional<CopyDirection> CopyDirectionFromName(std::string_view name);
std::optional<CpuOpCategory> CpuOpCategoryFromName(std::string_view name);
std::optional<MemoryOpKind> MemoryOpKindFromName(std::string_view name);
std::optional<SampleAxis> SampleAxisFromName(std::string_view name);

}  // namespace kraken
