#include "base/testing/test_data.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kraken::testing {

std::string DataDir() {
  const char* dir = std::getenv("KRAKEN_DATA_DIR");
  if (dir != nullptr && *dir != '\0') return dir;
  return KRAKEN_DEFAULT_DATA_DIR;
}

std::string DataPath(const std::string& relative) {
  std::string path = DataDir() + "/" + relative;
  if (!std::filesystem::exists(path)) ADD_FAILURE() << "real data file missing: " << path;
  return path;
}

std::string SourceDir() {
  const char* dir = std::getenv("KRAKEN_SOURCE_DIR");
  return dir != nullptr && *dir != '\0' ? dir : KRAKEN_DEFAULT_SOURCE_DIR;
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

std::string MakeTempDir(const std::string& name) {
  auto base = std::filesystem::temp_directory_path() /
              ("kraken_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  std::filesystem::create_directories(base);
  return base.string();
}

}  // namespace kraken::testing
