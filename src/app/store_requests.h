// The profile store's requests: importing files (and saving them), listing the stored
// profiles, exporting one. `kraken import|list|export` and the C API's kraken_import,
// kraken_list_profiles and kraken_export_profile print the same documents through here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "app/export_request.h"
#include "app/profile_inputs.h"
#include "base/status.h"
#include "model/profile.h"
#include "store/store.h"

namespace kraken {

// Imports every file (never a stored id: `import` reads files); `options.db` is unused.
Result<std::vector<Profile>> ImportFiles(const std::vector<std::string>& files, const InputOptions& options);

// Saves every profile (each in its own transaction) and returns their ids.
Result<std::vector<int64_t>> SaveProfiles(const std::string& db, const std::vector<Profile>& profiles);

// `kraken import`'s document. `stored_db` is the database path when the profiles were
// saved (with their `ids`), empty when not.
std::string RenderImportJson(const std::vector<Profile>& profiles, const std::string& stored_db,
                             const std::vector<int64_t>& ids);
std::string RenderImportText(const std::vector<Profile>& profiles, const std::string& stored_db,
                             const std::vector<int64_t>& ids);

// A profile's devices counted by name, in first-seen order: "8x NVIDIA H100 80GB HBM3",
// "2x A100-SXM4-40GB, 1x unnamed device"; "" when it has none. The one spelling `kraken
// list` and the dashboard's workload list (device_summary of /api/v1/profiles) show.
std::string DescribeDevices(const std::vector<std::string>& names);

// `kraken list`'s document over the store `db` names (no database yet: an empty list).
Result<std::string> RenderProfileList(const std::string& db, bool json);

// Writes stored profile `id` as one document in `format` ("json": the whole profile,
// "csv"/"parquet": its samples table) through `write`, one piece at a time, reading each
// series' samples only when its turn comes (a day-long capture never has to fit in memory
// as text). Every table and several formats at once: app/export_request.h.
Status ExportProfile(ProfileStore& store, int64_t id, const std::string& format, const ChunkWriter& write);

}  // namespace kraken
