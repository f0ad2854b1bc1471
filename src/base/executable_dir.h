// Where the running program's file lives, for finding what ships beside it (the CUPTI
// tracer of a bundle, the build's list of test files).
#pragma once

#include <string>

namespace kraken {

// The folder of the running executable (from /proc/self/exe), or "" when it cannot be read.
std::string ExecutableDir();

}  // namespace kraken
