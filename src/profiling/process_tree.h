// The process tree `kraken profile` follows: a root process and its descendants, found
// through /proc (each process's parent pid) and refreshed on every sampling pass.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>

namespace kraken::profiling {

// pid -> parent pid of every process under `proc_root` (/proc) that could be read now.
std::unordered_map<int64_t, int64_t> ReadParentMap(const std::string& proc_root = "/proc");

// `roots` and every process below them in `parents`; roots absent from `parents` (exited)
// are left out.
std::set<int64_t> DescendantsOf(const std::set<int64_t>& roots, const std::unordered_map<int64_t, int64_t>& parents);

// Follows a tree across passes. A member stays a member while it is alive even when its
// parent exits and it is re-parented (to init or a subreaper), so a daemonized worker is
// not lost.
class ProcessTreeTracker {
 public:
  // include_root: false when the root is kraken itself (launch mode: the tree is its
  // children, and kraken's own pid is not the workload's).
  ProcessTreeTracker(int64_t root, bool include_root, std::string proc_root = "/proc");
  // Several trees at once (a profiling session over a pid set): every root and its
  // descendants.
  ProcessTreeTracker(std::set<int64_t> roots, bool include_roots, std::string proc_root = "/proc");

  // Re-reads /proc; returns the members now.
  const std::set<int64_t>& Refresh();
  const std::set<int64_t>& members() const { return members_; }
  // Every pid that was a member at some refresh.
  const std::set<int64_t>& ever_members() const { return ever_; }

 private:
  std::set<int64_t> roots_;
  bool include_root_;
  std::string proc_root_;
  std::set<int64_t> members_;
  std::set<int64_t> ever_;
};

}  // namespace kraken::profiling
