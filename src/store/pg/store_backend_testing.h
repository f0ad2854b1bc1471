// Test support: the store tests run against both backends (docs/store.md "PostgreSQL").
// SQLite gets a file in a fresh temporary folder; PostgreSQL a fresh database on the one
// real server this test process starts (pg_test_server.h) at its first PostgreSQL case and
// stops at exit. A missing PostgreSQL makes those cases fail, naming what to install.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "base/status.h"

namespace kraken::store::testing {

enum class StoreBackend { kSqlite, kPostgres };

inline auto AllStoreBackends() { return ::testing::Values(StoreBackend::kSqlite, StoreBackend::kPostgres); }
inline std::string StoreBackendName(StoreBackend backend) {
  return backend == StoreBackend::kSqlite ? "sqlite" : "postgresql";
}
struct StoreBackendParamName {
  std::string operator()(const ::testing::TestParamInfo<StoreBackend>& info) const {
    return StoreBackendName(info.param);
  }
};

// Ok for SQLite; for PostgreSQL starts this process's server once and says why it cannot.
Status EnsureStoreBackend(StoreBackend backend);
// A new, empty store: "DIR/kraken.db" or "postgresql://kraken@127.0.0.1:PORT/store_N".
// `name` names the temporary folder (and is otherwise only for people reading logs).
std::string NewStoreLocation(StoreBackend backend, const std::string& name);

// The fixture of a test that runs once per backend: `class T : public StoreBackendTest {};`,
// TEST_P(T, ...) { std::string location = NewStore("name"); ... } and
// INSTANTIATE_TEST_SUITE_P(Backends, T, AllStoreBackends(), StoreBackendParamName()).
class StoreBackendTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    Status ready = EnsureStoreBackend(GetParam());
    ASSERT_TRUE(ready.ok()) << ready.message();
  }
  std::string NewStore(const std::string& name) const { return NewStoreLocation(GetParam(), name); }
  bool IsSqlite() const { return GetParam() == StoreBackend::kSqlite; }
};

}  // namespace kraken::store::testing
