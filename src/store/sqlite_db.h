// The store's database on SQLite (database.h): one connection, and errors as kraken
// Status values. Nothing here knows about profiles; the store's SQL lives in the files
// that use it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "store/database.h"

namespace kraken::store {

class SqliteDb final : public Db {
 public:
  // Opens (read_only) or opens-or-creates `path`. A read-only open of a missing file is
  // NotFound. busy_timeout_ms: how long a statement waits for another connection's lock.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, bool read_only, int busy_timeout_ms);
  ~SqliteDb() override;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  Dialect dialect() const override { return Dialect::kSqlite; }
  const std::string& path() const override { return path_; }
  Status Exec(std::string_view sql) override;
  Result<Statement> Prepare(std::string_view sql) override;
  Status Begin(TransactionKind kind) override;

  sqlite3* handle() const { return db_; }
  // How long a statement waits for another connection's lock (Open's busy_timeout_ms).
  int busy_timeout_ms() const { return busy_timeout_ms_; }
  // A Status for the connection's last error: "<what>: <sqlite message>".
  Status Error(std::string_view what, int code) const;

 private:
  SqliteDb(sqlite3* db, std::string path, int busy_timeout_ms)
      : db_(db), path_(std::move(path)), busy_timeout_ms_(busy_timeout_ms) {}
  sqlite3* db_;
  std::string path_;
  int busy_timeout_ms_;
};

}  // namespace kraken::store
