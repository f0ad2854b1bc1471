// Loading the inputs of the commands that take "FILE|ID...": files through the importer
// registry, stored profile ids ("12", "db:12") from the store. Shared by `kraken analyze`
// and `kraken report` so both accept exactly the same arguments.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace kraken::cli {

// An argument that names no file but reads as a profile id is loaded from the store
// (opened from `db`, see AddDbOption); anything else is imported (a missing file is
// reported by the importer). `format` forces an importer when not empty.
Status LoadProfileInputs(const std::vector<std::string>& arguments, const std::string& format,
                         const std::string& db, std::vector<Profile>* profiles);

}  // namespace kraken::cli
