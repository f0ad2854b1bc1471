// A temp file a libFuzzer target rewrites with each input, for code that reads a path
// (config files, traces edited in place). Removed when the fuzzer exits normally.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace kraken::fuzzing {

struct FuzzInputFile {
  std::string path;
  // `prefix`: the file name's start, e.g. "kraken-fuzz-config".
  explicit FuzzInputFile(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    int fd = mkstemp(pattern.data());
    if (fd >= 0) close(fd);
    path = pattern;
  }
  ~FuzzInputFile() { unlink(path.c_str()); }
  // Replaces the content with `bytes` (creating the file again if the code under test
  // renamed or removed it); false when it could not be written.
  bool Write(std::string_view bytes) const {
    int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CREAT, 0600);
    if (fd < 0) return false;
    bool ok = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    close(fd);
    return ok;
  }
  std::string Read() const {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
};

}  // namespace kraken::fuzzing
