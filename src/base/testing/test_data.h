// Where tests find the real data in ../shared/data. A missing file fails the test
// loudly: a golden test must never pass because its input was not there.
#pragma once

#include <string>

namespace kraken::testing {

// Root of the shared data: $KRAKEN_DATA_DIR, else the folder CMake was configured with.
std::string DataDir();
// Absolute path of `relative` under DataDir(); fails the current test if it is missing.
std::string DataPath(const std::string& relative);
// Root of the kraken source tree (KRAKEN_SOURCE_DIR).
std::string SourceDir();
// Reads a file completely (fails the current test when it cannot).
std::string ReadFileOrDie(const std::string& path);
// A fresh empty directory under the test's temp dir, removed when the test ends (made
// outside a test: when its suite ends) unless KRAKEN_KEEP_TEST_DIRS=1.
std::string MakeTempDir(const std::string& name);

}  // namespace kraken::testing
