// Helpers the insights tests share (one definition each, for the unity build).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/insights/trace_diff.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::testing {

// Every profile of a shared-data file (a tar holds several ranks).
inline std::vector<Profile> ImportAllProfiles(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok()) return {};
  return std::move(*result);
}

inline Profile ImportFirstProfile(const std::string& relative) {
  std::vector<Profile> all = ImportAllProfiles(relative);
  EXPECT_FALSE(all.empty()) << relative;
  return all.empty() ? Profile() : std::move(all[0]);
}

// One side of a trace diff as the diff request builds it: every kernel group kept, each
// rank's communication kernels classified once and handed over.
inline TraceSideSummary SummarizeDiffSide(const std::vector<Profile>& profiles) {
  CharacterizeOptions options;
  options.kernels.top_n = 1'000'000;
  std::vector<WorkloadReport> reports;
  std::vector<CommunicationKernels> communication;
  for (const Profile& p : profiles) {
    reports.push_back(CharacterizeWorkload(p, options));
    communication.push_back(ClassifyCommunication(p));
  }
  std::vector<DiffRank> ranks;
  for (size_t i = 0; i < profiles.size(); ++i) ranks.push_back({&profiles[i], &reports[i], &communication[i]});
  return SummarizeTraceSide(ranks);
}

}  // namespace kraken::testing
