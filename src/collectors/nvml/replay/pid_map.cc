#include "collectors/nvml/replay/pid_map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace kraken::nvml::replay {
namespace {

bool ParseUint(std::string_view text, uint32_t& value) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// The parent pid in /proc/<pid>/stat: the field after the ")" that closes the command name
// (which may itself hold spaces and parentheses) and the state letter.
bool ReadParent(const std::string& pid, uint32_t& parent) {
  // open/read, not an ifstream: a process that exits between open and read fails the read
  // with ESRCH, which libstdc++'s filebuf throws through istreambuf_iterator (an abort of the
  // process that loaded this library).
  std::string stat;
  int fd = open(("/proc/" + pid + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) stat.append(buffer, static_cast<size_t>(n));
  close(fd);
  if (n < 0) return false;
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  uint32_t ppid = 0;
  if (!(rest >> state >> ppid)) return false;
  parent = ppid;
  return true;
}

// The children of `parent`, lowest pid first.
std::vector<uint32_t> ChildrenOf(uint32_t parent) {
  std::vector<uint32_t> children;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return children;
  while (dirent* entry = readdir(dir)) {
    uint32_t pid = 0, ppid = 0;
    if (!ParseUint(entry->d_name, pid)) continue;
    if (ReadParent(entry->d_name, ppid) && ppid == parent) children.push_back(pid);
  }
  closedir(dir);
  std::sort(children.begin(), children.end());
  return children;
}

}  // namespace

bool ParsePidMap(std::string_view text, std::vector<PidMapEntry>& entries, std::string& error) {
  entries.clear();
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    size_t colon = item.find(':');
    PidMapEntry entry;
    if (colon == std::string_view::npos || !ParseUint(item.substr(0, colon), entry.captured)) {
      error = "KRAKEN_NVML_REPLAY_PID_MAP: '" + std::string(item) + "' is not CAPTURED:PID or CAPTURED:self/N/...";
      return false;
    }
    std::string_view target = item.substr(colon + 1);
    if (target.substr(0, 4) == "self") {
      entry.relative = true;
      target.remove_prefix(4);
      while (!target.empty()) {
        uint32_t rank = 0;
        size_t slash = target.find('/', 1);
        size_t digits = slash == std::string_view::npos ? slash : slash - 1;
        if (target[0] != '/' || !ParseUint(target.substr(1, digits), rank)) {
          error = "KRAKEN_NVML_REPLAY_PID_MAP: '" + std::string(item) + "': expected self/N/...";
          return false;
        }
        entry.path.push_back(rank);
        target = slash == std::string_view::npos ? std::string_view() : target.substr(slash);
      }
    } else if (!ParseUint(target, entry.pid)) {
      error = "KRAKEN_NVML_REPLAY_PID_MAP: '" + std::string(item) + "': the target is not a pid";
      return false;
    }
    entries.push_back(std::move(entry));
  }
  return true;
}

uint32_t MapCapturedPid(const std::vector<PidMapEntry>& entries, uint32_t captured) {
  for (const PidMapEntry& entry : entries) {
    if (entry.captured != captured) continue;
    if (!entry.relative) return entry.pid;
    uint32_t pid = static_cast<uint32_t>(getpid());
    for (uint32_t rank : entry.path) {
      std::vector<uint32_t> children = ChildrenOf(pid);
      if (rank >= children.size()) return captured;
      pid = children[rank];
    }
    return pid;
  }
  return captured;
}

}  // namespace kraken::nvml::replay
