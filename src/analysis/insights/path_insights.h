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

// `communication` is ClassifyCommunication(profile): both analyses count a kernel as
// communication on the same evidence as the timeline. The overload without it classifies.
PathInsights AnalyzePathInsights(const Profile& profile, const CommunicationKernels& communication);
PathInsights AnalyzePathInsights(const Profile& profile);

}  // namespace kraken
