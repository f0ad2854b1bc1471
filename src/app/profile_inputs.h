// Loading the inputs of every request that takes "FILE|ID...": files through the importer
// registry, stored profile ids ("12", "db:12") from the store. The CLI, the C API and the
// report all load through here, so every command accepts exactly the same arguments.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "importers/importer.h"
#include "model/profile.h"

namespace kraken {

struct InputOptions {
  std::string format;  // forces an importer when not empty
  std::string db;      // the store ids are read from (ResolveDbPath)
  // Progress of each imported file (the CLI draws it on a terminal); may be empty.
  std::function<ProgressFn(const std::string& path)> progress;
  // Called after each file was imported, successfully or not (the CLI clears its line).
  std::function<void()> after_import;
};

// The profiles of a request and, for each, the argument it came from: the file as given,
// or "profile 12" for a stored id (what messages about that input name).
struct LoadedProfiles {
  std::vector<Profile> profiles;
  std::vector<std::string> origins;  // parallel to `profiles`
};

// An argument that names no file but reads as a profile id is loaded from the store
// (opened once, on the first id); anything else is imported (a missing file is reported
// by the importer, naming it).
Status LoadProfileInputs(const std::vector<std::string>& arguments, const InputOptions& options,
                         LoadedProfiles* loaded);
Status LoadProfileInputs(const std::vector<std::string>& arguments, const InputOptions& options,
                         std::vector<Profile>* profiles);

// True when `argument` is loaded from the store rather than imported.
bool IsStoredProfileArgument(const std::string& argument);

}  // namespace kraken
