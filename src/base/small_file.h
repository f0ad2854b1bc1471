// Whole-file reads of the small files a person names (a config file, a token file, an NVML
// capture to replay): anything that is not a streamed import. Only a regular file is read
// (a directory given as the config file was silently an empty config), and never more than
// `limit` bytes: /dev/zero or an endless fifo cannot grow kraken's memory.
//
// Header-only, standard library only: libkraken_nvml_replay.so links nothing else.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken {

inline constexpr size_t kKiB = 1024;
inline constexpr size_t kMiB = 1024 * kKiB;

// `what` names the file in errors ("the config file"): "<path>: <what> is not a regular file".
inline Result<std::string> ReadSmallFile(const std::string& path, size_t limit, std::string_view what) {
  std::string prefix = path + ": ";
  // O_NONBLOCK: opening a fifo must not wait for a writer before fstat refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return NotFound(prefix + "cannot read " + std::string(what) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidInput(prefix + std::string(what) + " is not a regular file");
  }
  std::string text;
  char buffer[65536];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return IoError(prefix + "cannot read " + std::string(what) + ": " + why);
    }
    if (got == 0) break;
    if (text.size() + static_cast<size_t>(got) > limit) {
      ::close(fd);
      return InvalidInput(prefix + std::string(what) + " is larger than the limit of " + std::to_string(limit) +
                          " bytes");
    }
    text.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  return text;
}

}  // namespace kraken
