// What `kraken analyze` and the server's characterize endpoint share: the settings a
// request may give, their validation, and the one path from profiles to the JSON or text
// document, so that the CLI and the server write the same bytes for the same profile.
#pragma once

#include <string>
#include <vector>

#include "analysis/characterize.h"
#include "base/status.h"
#include "model/profile.h"

namespace kraken {

struct AnalyzeSettings {
  std::string device;          // catalog id or device name; empty = recognised from the input
  std::string window = "trace";  // headline timeline window: "trace" or "steps"
  std::string thresholds;      // "LOW,HIGH": fixed arithmetic-intensity classes; empty = roofline
  size_t top = 10;             // kernels listed
  bool linked_only = false;    // only GPU events linked to a launch call
};

// Checks the settings (messages name the CLI flags, which the server's query parameters
// mirror) and turns them into characterization options.
Result<CharacterizeOptions> MakeCharacterizeOptions(const AnalyzeSettings& settings);

// Characterizes every profile, aggregates them and renders the analyze document.
std::string RenderAnalysis(const std::vector<Profile>& profiles, const AnalyzeSettings& settings,
                           const CharacterizeOptions& options, bool json);

}  // namespace kraken
