// Store connections for the request threads. A ProfileStore is one SQLite connection
// that one thread may use at a time, so each request borrows one from the pool and gives
// it back; SQLite's WAL lets the borrowed connections read at the same time while writes
// take turns (busy timeout). Connections are opened on demand and kept.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/store.h"

namespace kraken::server {

class StorePool {
 public:
  explicit StorePool(std::string path) : path_(std::move(path)) {}

  // A borrowed connection; returns to the pool when destroyed.
  class Lease {
   public:
    Lease(StorePool* pool, std::unique_ptr<ProfileStore> store) : pool_(pool), store_(std::move(store)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    ProfileStore* operator->() { return store_.get(); }
    ProfileStore& operator*() { return *store_; }

   private:
    StorePool* pool_;
    std::unique_ptr<ProfileStore> store_;
  };

  Result<Lease> Acquire();
  const std::string& path() const { return path_; }

 private:
  void Release(std::unique_ptr<ProfileStore> store);

  std::string path_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<ProfileStore>> idle_;
};

}  // namespace kraken::server
