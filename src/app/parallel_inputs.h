// Loading the inputs of `kraken analyze` on every core: the same arguments as
// LoadProfileInputs (files, stored ids) plus directories (their files, sorted by name, one
// level deep), with each file, and each member of a tar archive, imported on its own
// thread. Profiles come back in argument order (archive members in archive order), so the
// output does not depend on scheduling.
// Memory stays bounded: the reading thread queues at most `threads` items and, when the
// queue is full, imports the next one itself, so at most 2 x threads raw archive members
// are held at once besides the imported profiles.
#pragma once

#include <string>
#include <vector>

#include "app/profile_inputs.h"
#include "base/status.h"

namespace kraken {

// Import progress callbacks are not called when threads > 1 (they draw one terminal line).
Status LoadProfileInputsParallel(const std::vector<std::string>& arguments, const InputOptions& options,
                                 size_t threads, LoadedProfiles* loaded);

}  // namespace kraken
