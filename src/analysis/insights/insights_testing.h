// Helpers the insights tests share (one definition each, for the unity build).
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace kraken::testing
