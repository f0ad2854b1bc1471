#include "base/testing/test_data.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>
#include <unistd.h>

#include "base/testing/built_files.h"

namespace kraken::testing {

std::string DataDir() {
  const char* dir = std::getenv("KRAKEN_DATA_DIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return BuiltFile("data_dir");
}

std::string DataPath(const std::string& relative) {
  std::string path = DataDir() + "/" + relative;
  if (!std::filesystem::exists(path)) ADD_FAILURE() << "real data file missing: " << path;
  return path;
}

std::string SourceDir() {
  const char* dir = std::getenv("KRAKEN_SOURCE_DIR");
  return dir != nullptr && *dir != '\0' ? dir : BuiltFile("source_dir");
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

// Removes the temp dirs a test made when it ends, and those made outside a test (a
// suite's SetUpTestSuite) when the suite ends: runs used to leave thousands behind.
// KRAKEN_KEEP_TEST_DIRS=1 keeps them for a look after a failure.
class TempDirCleaner : public ::testing::EmptyTestEventListener {
 public:
  void Track(const std::string& dir) {
    bool in_test = ::testing::UnitTest::GetInstance()->current_test_info() != nullptr;
    (in_test ? test_dirs_ : suite_dirs_).push_back(dir);
  }
  void OnTestEnd(const ::testing::TestInfo&) override { RemoveAll(test_dirs_); }
  void OnTestSuiteEnd(const ::testing::TestSuite&) override { RemoveAll(suite_dirs_); }
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    RemoveAll(test_dirs_);
    RemoveAll(suite_dirs_);
  }

 private:
  static void RemoveAll(std::vector<std::string>& dirs) {
    const char* keep = std::getenv("KRAKEN_KEEP_TEST_DIRS");
    if (keep == nullptr || std::string(keep) != "1")
      for (const std::string& dir : dirs) {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
      }
    dirs.clear();
  }

  std::vector<std::string> test_dirs_, suite_dirs_;
};

TempDirCleaner& Cleaner() {
  // gtest owns the listener once appended; it lives until the program ends.
  static TempDirCleaner* cleaner = [] {
    auto* listener = new TempDirCleaner();
    ::testing::UnitTest::GetInstance()->listeners().Append(listener);
    return listener;
  }();
  return *cleaner;
}

}  // namespace

std::string MakeTempDir(const std::string& name) {
  auto base = std::filesystem::temp_directory_path() /
              ("kraken_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base);
  Cleaner().Track(base.string());
  return base.string();
}

}  // namespace kraken::testing
