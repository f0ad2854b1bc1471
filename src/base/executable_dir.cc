#include "base/executable_dir.h"

#include <filesystem>
#include <system_error>

namespace kraken {

std::string ExecutableDir() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string() : exe.parent_path().string();
}

}  // namespace kraken
