#include "profiling/process_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace kraken::profiling {
namespace {

bool ParsePid(std::string_view text, int64_t& pid) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  return ec == std::errc() && end == text.data() + text.size() && pid > 0;
}

// The parent in /proc/<pid>/stat: after the ")" that ends the command name (which may hold
// spaces and parentheses itself) come the state letter and the parent pid.
// Read with open/read, not an ifstream: a process that exits between open and read makes
// read fail with ESRCH, which libstdc++'s filebuf turns into an exception that
// istreambuf_iterator does not catch (seen as kraken trial aborting under load).
bool ReadProcFile(const std::string& path, std::string& text) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  text.clear();
  char buffer[4096];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return n == 0;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
}

bool ReadParent(const std::string& stat_path, int64_t& parent) {
  std::string stat;
  if (!ReadProcFile(stat_path, stat)) return false;
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  int64_t ppid = -1;
  if (!(rest >> state >> ppid) || ppid < 0) return false;
  parent = ppid;
  return true;
}

}  // namespace

std::unordered_map<int64_t, int64_t> ReadParentMap(const std::string& proc_root) {
  std::unordered_map<int64_t, int64_t> parents;
  DIR* dir = opendir(proc_root.c_str());
  if (dir == nullptr) return parents;
  while (dirent* entry = readdir(dir)) {
    int64_t pid = 0, parent = 0;
    if (!ParsePid(entry->d_name, pid)) continue;
    // A process that exits between readdir and the read is simply not in the map.
    if (ReadParent(proc_root + "/" + entry->d_name + "/stat", parent)) parents[pid] = parent;
  }
  closedir(dir);
  return parents;
}

std::set<int64_t> DescendantsOf(const std::set<int64_t>& roots, const std::unordered_map<int64_t, int64_t>& parents) {
  std::unordered_map<int64_t, std::vector<int64_t>> children;
  for (const auto& [pid, parent] : parents) children[parent].push_back(pid);
  std::set<int64_t> tree;
  std::vector<int64_t> pending;
  for (int64_t root : roots)
    if (parents.count(root) > 0) pending.push_back(root);
  while (!pending.empty()) {
    int64_t pid = pending.back();
    pending.pop_back();
    if (!tree.insert(pid).second) continue;  // a parent loop in a torn read: visit once
    auto it = children.find(pid);
    if (it != children.end()) pending.insert(pending.end(), it->second.begin(), it->second.end());
  }
  return tree;
}

ProcessTreeTracker::ProcessTreeTracker(int64_t root, bool include_root, std::string proc_root)
    : ProcessTreeTracker(std::set<int64_t>{root}, include_root, std::move(proc_root)) {}

ProcessTreeTracker::ProcessTreeTracker(std::set<int64_t> roots, bool include_roots, std::string proc_root)
    : roots_(std::move(roots)), include_root_(include_roots), proc_root_(std::move(proc_root)) {}

const std::set<int64_t>& ProcessTreeTracker::Refresh() {
  std::unordered_map<int64_t, int64_t> parents = ReadParentMap(proc_root_);
  std::set<int64_t> roots = members_;  // earlier members that were re-parented
  roots.insert(roots_.begin(), roots_.end());
  if (!include_root_)
    for (int64_t root : roots_) parents[root] = parents.count(root) > 0 ? parents[root] : 0;
  members_ = DescendantsOf(roots, parents);
  if (!include_root_)
    for (int64_t root : roots_) members_.erase(root);
  ever_.insert(members_.begin(), members_.end());
  return members_;
}

}  // namespace kraken::profiling
