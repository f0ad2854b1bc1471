// The copying half of RemoveProfilerStep (profiler_step_removal.h): the trace written
// again without some byte ranges, streamed in chunks, replacing the file by a rename.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace kraken {

// A part of the file the copy leaves out: the bytes [begin, end) of an event, or
// (comma_only) the one ',' in the gap [begin, end) between two events, whose white space
// is kept.
struct StepCut {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool comma_only = false;
};

// Writes the file at `path` again without `cuts` (in file order, not overlapping), by way
// of a temporary file renamed over it (base/atomic_file.h). The file must still hold what
// the cuts were found in: an event cut must span "{...}" and a comma cut white space and
// one comma, else nothing is replaced and the error says so.
Status CopyWithoutCuts(const std::string& path, const std::vector<StepCut>& cuts);

}  // namespace kraken
