#include "base/testing/built_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <system_error>

#include "base/executable_dir.h"

namespace kraken::testing {
namespace {

constexpr const char* kListName = "kraken_built_files.txt";

struct BuiltFiles {
  std::string list;  // the list's path; empty when none was found
  std::map<std::string, std::string> paths;
};

// The first kraken_built_files.txt in the executable's folder or one above it.
std::string FindList() {
  std::error_code error;
  std::filesystem::path dir = ExecutableDir();
  if (dir.empty()) return "";
  for (; !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / kListName, error)) return (dir / kListName).string();
    if (dir == dir.root_path()) break;
  }
  return "";
}

const BuiltFiles& Load() {
  static BuiltFiles files;
  static std::once_flag once;
  std::call_once(once, [] {
    files.list = FindList();
    std::ifstream in(files.list);
    std::string line;
    while (std::getline(in, line)) {
      size_t equals = line.find('=');
      if (equals != std::string::npos) files.paths[line.substr(0, equals)] = line.substr(equals + 1);
    }
  });
  return files;
}

// Read at the program's start, before any test forks: a child that looks a file up after
// fork() then only searches the map it inherited.
[[maybe_unused]] const bool kLoadedAtStart = (Load(), true);

}  // namespace

const char* BuiltFile(const char* target) {
  const BuiltFiles& files = Load();
  auto it = files.paths.find(target);
  if (it != files.paths.end()) return it->second.c_str();
  if (files.list.empty()) {
    ADD_FAILURE() << "no " << kListName << " in the test's folder or above it: run the test from its build folder";
  } else {
    ADD_FAILURE() << files.list << " names no target " << target << " (not built in this configuration?)";
  }
  return "/nonexistent/kraken-built-file";
}

}  // namespace kraken::testing
