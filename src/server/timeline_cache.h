// The timeline explorer's indexes (app/timeline_window.h), kept for the profiles last
// explored: zooming and panning send a query per view change, and loading the largest
// shared trace from the store takes seconds. Keyed by id and creation time (an id the
// store reuses after a delete is another profile); at most kMaxEntries indexes are held,
// the least recently used is dropped, so memory stays bounded by a few profiles.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

#include "app/timeline_window.h"

namespace kraken::server {

class TimelineCache {
 public:
  using Key = std::pair<int64_t, int64_t>;  // id, created_ns
  static constexpr size_t kMaxEntries = 2;

  std::shared_ptr<const TimelineIndex> Find(const Key& key) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first != key) continue;
      entries_.splice(entries_.begin(), entries_, it);  // most recent first
      return entries_.front().second;
    }
    return nullptr;
  }
  void Put(const Key& key, std::shared_ptr<const TimelineIndex> index) {
    std::lock_guard lock(mutex_);
    entries_.emplace_front(key, std::move(index));
    while (entries_.size() > kMaxEntries) entries_.pop_back();
  }

 private:
  std::mutex mutex_;
  std::list<std::pair<Key, std::shared_ptr<const TimelineIndex>>> entries_;
};

}  // namespace kraken::server
