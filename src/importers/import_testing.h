// Helpers the importer tests share (one definition each, so the suites can be compiled as
// unity builds): a real data file imported whole, an import counter, a series' values.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/testing/test_data.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "model/profile.h"

namespace kraken::testing {

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr int64_t kSecondNs = 1'000'000'000;

// Imports a file of the shared real data that holds exactly one profile.
inline Profile ImportOne(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return Profile();
  EXPECT_EQ(result->size(), 1u);
  return std::move((*result)[0]);
}

// How many records the importer counted under `name` (0 when it counted none).
inline int64_t ImportCounter(const Profile& p, const std::string& name) {
  auto it = p.import_counters.find(name);
  return it == p.import_counters.end() ? 0 : it->second;
}

inline std::vector<double> SampleValues(const Series* s) {
  std::vector<double> values;
  if (s != nullptr)
    for (const Sample& sample : s->samples) values.push_back(sample.value);
  return values;
}

}  // namespace kraken::testing
