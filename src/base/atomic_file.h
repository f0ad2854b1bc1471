// Writing a whole file so that it appears complete or not at all (temp file + rename): an
// interrupted run never leaves a half-written output.
#pragma once

#include <string>

#include "base/status.h"

namespace kraken {

Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace kraken
