// The per-rank insights `kraken analyze` adds to the timeline breakdown: the critical path
// of each step and the frequent kernel sequences.
#pragma once

#include <vector>

#include "analysis/insights/critical_path.h"
#include "analysis/insights/kernel_sequences.h"
#include "model/profile.h"

namespace kraken {

struct PathInsights {
  CriticalPathReport critical_path;
  std::vector<KernelSequence> kernel_sequences;
};

PathInsights AnalyzePathInsights(const Profile& profile);

}  // namespace kraken
