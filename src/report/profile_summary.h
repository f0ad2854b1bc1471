// What an import produced, for `kraken import`: counts per record type, devices,
// metadata and the importer's named counters.
#pragma once

#include <string>
#include <vector>

#include "base/json_writer.h"
#include "model/enum_names.h"
#include "model/profile.h"

namespace kraken {

void WriteProfileSummaryJson(const Profile& profile, JsonWriter& json);
std::string RenderProfileSummaryText(const Profile& profile);

}  // namespace kraken
