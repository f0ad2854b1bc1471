// The headline figures the profile list shows (app/profile_facts.h), computed from a stored
// profile once and cached: a committed profile never changes, so a cached entry is never
// stale (a deleted id is simply not listed any more).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "app/profile_facts.h"

namespace kraken::server {

class ProfileFactsCache {
 public:
  std::optional<ProfileFacts> Find(int64_t id) const;
  void Put(int64_t id, const ProfileFacts& facts);

 private:
  mutable std::mutex mutex_;
  std::map<int64_t, ProfileFacts> facts_;
};

}  // namespace kraken::server
