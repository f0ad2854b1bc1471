// From imported or stored profiles to the named demand vectors the co-location model
// takes: the one path `kraken colocate` and the server's colocate endpoint share, so both
// name, default and refuse inputs the same way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/device.h"
#include "model/profile.h"
#include "model/workload_demand.h"

namespace kraken {

struct ProfileDemands {
  std::vector<WorkloadDemand> demands;  // one per workload, names shortened (and unique after Finish)
  std::vector<std::string> notes;       // defaults chosen (device of Orion lists), inputs skipped
};

// File name without directories and without trailing known extensions ("a/b.json.gz" -> "b").
std::string WorkloadStem(std::string_view name);

// Orion's *_fb0 files hold one "-1,1,1,7" row per operator: nothing was measured.
bool IsOrionPlaceholderList(const Profile& profile);

// Characterizes `profile`, derives its demands and appends them, named after the profile's
// source. `device` (may be null) is the GPU the kernels' SM fill is measured against;
// Orion lists without it get the V100 of their SOURCES.md (catalog v100-pcie) and a note.
// `input` names the input in messages (a file, "profile 12").
Status AppendProfileDemands(const Profile& profile, const std::string& input, const DeviceSpec* device,
                            ProfileDemands* out);

// Makes the names unique ("x", "x #2") once every input is appended.
void FinishProfileDemands(ProfileDemands* out);

}  // namespace kraken
