#include "store/pg/store_backend_testing.h"

#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <optional>

#include "base/testing/test_data.h"
#include "store/pg/pg_db.h"
#include "store/pg/pg_test_server.h"

namespace kraken::store::testing {
namespace {

// Not in a MakeTempDir folder: those are removed after each test, this outlives them.
struct SharedPgServer {
  ~SharedPgServer() {
    server.reset();  // pg_ctl stop, then the data folder goes
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
  std::string dir;
  std::optional<pg::testing::PgTestServer> server;
  Status status;
  int databases = 0;
  std::mutex mutex;
};

// Started at the first call; the static's destructor stops it when the process exits.
SharedPgServer& Shared() {
  static SharedPgServer shared;
  static std::once_flag started;
  std::call_once(started, [] {
    std::string bin = pg::testing::FindPostgresBin();
    if (bin.empty()) {
      shared.status = Unavailable(
          "PostgreSQL's server is not installed (no /usr/lib/postgresql/*/bin/initdb, pg_ctl, postgres): "
          "install Debian's postgresql package (scripts/install-deps.sh does)");
      return;
    }
    shared.dir = (std::filesystem::temp_directory_path() / ("kraken_test_pg_server_" + std::to_string(::getpid())))
                     .string();
    std::error_code ec;
    std::filesystem::remove_all(shared.dir, ec);
    std::filesystem::create_directories(shared.dir, ec);
    shared.server.emplace();
    shared.status = shared.server->Start(bin, shared.dir);
  });
  return shared;
}

}  // namespace

Status EnsureStoreBackend(StoreBackend backend) {
  if (backend == StoreBackend::kSqlite) return Status::Ok();
  return Shared().status;
}

std::string NewStoreLocation(StoreBackend backend, const std::string& name) {
  if (backend == StoreBackend::kSqlite) return kraken::testing::MakeTempDir(name) + "/kraken.db";
  SharedPgServer& shared = Shared();
  if (!shared.status.ok()) {
    ADD_FAILURE() << shared.status.message();
    return "postgresql://kraken@127.0.0.1:1/no_server?connect_timeout=1";
  }
  std::string database;
  {
    std::lock_guard<std::mutex> lock(shared.mutex);
    database = "store_" + std::to_string(++shared.databases);
  }
  auto admin = pg::PgDb::Connect(shared.server->url());
  Status created = admin.ok() ? (*admin)->Exec("CREATE DATABASE " + database) : admin.status();
  if (!created.ok()) ADD_FAILURE() << name << ": " << created.message();
  return shared.server->url(database);
}

}  // namespace kraken::store::testing
