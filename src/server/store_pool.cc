#include "server/store_pool.h"

namespace kraken::server {

StorePool::Lease::~Lease() {
  if (store_ != nullptr) pool_->Release(std::move(store_));
}

Result<StorePool::Lease> StorePool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<ProfileStore> store = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(store));
    }
  }
  // Opened outside the lock: opening may wait on another writer.
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ProfileStore> store, ProfileStore::Open(path_));
  return Lease(this, std::move(store));
}

void StorePool::Release(std::unique_ptr<ProfileStore> store) {
  // A lost PostgreSQL connection would fail every later request: the next Acquire reconnects.
  if (store->connection_lost()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(store));
}

}  // namespace kraken::server
