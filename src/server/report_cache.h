// The workload page's report documents (GET /api/v1/profiles/{id}/report), kept once
// rendered: a committed profile never changes, and the GenAI trace's document (143 pods
// through analyze and disagg) takes 0.2-0.5 s to render on the 2-core build machine. Keyed
// by id, creation time (an id the store reuses after a delete is another profile) and
// device; the oldest of more than kMaxEntries is dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

namespace kraken::server {

class ReportCache {
 public:
  using Key = std::tuple<int64_t, int64_t, std::string>;  // id, created_ns, device
  static constexpr size_t kMaxEntries = 16;

  std::optional<std::string> Find(const Key& key) const;
  void Put(const Key& key, std::string document);

 private:
  mutable std::mutex mutex_;
  std::map<Key, std::string> documents_;
  std::deque<Key> order_;  // insertion order, oldest first
};

}  // namespace kraken::server
