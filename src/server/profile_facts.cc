#include "server/profile_facts.h"

namespace kraken::server {

std::optional<ProfileFacts> ProfileFactsCache::Find(int64_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = facts_.find(id);
  if (it == facts_.end()) return std::nullopt;
  return it->second;
}

void ProfileFactsCache::Put(int64_t id, const ProfileFacts& facts) {
  std::lock_guard<std::mutex> lock(mutex_);
  facts_[id] = facts;
}

}  // namespace kraken::server
