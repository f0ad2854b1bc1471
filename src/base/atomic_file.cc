#include "base/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kraken {

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return IoError(path + ": cannot write");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) {
      std::filesystem::remove(temp);
      return IoError(path + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp);
    return IoError(path + ": " + ec.message());
  }
  return Status::Ok();
}

}  // namespace kraken
