#include "server/report_cache.h"

namespace kraken::server {

std::optional<std::string> ReportCache::Find(const Key& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = documents_.find(key);
  if (it == documents_.end()) return std::nullopt;
  return it->second;
}

void ReportCache::Put(const Key& key, std::string document) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, fresh] = documents_.insert_or_assign(key, std::move(document));
  if (!fresh) return;
  order_.push_back(key);
  while (order_.size() > kMaxEntries) {
    documents_.erase(order_.front());
    order_.pop_front();
  }
}

}  // namespace kraken::server
