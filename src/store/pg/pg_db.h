// A PostgreSQL connection for the store (docs/store.md "PostgreSQL"): libpq, from Debian's
// libpq-dev. Plain C++ API: only pg_db.cc includes libpq-fe.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace kraken::store::pg {

class PgDb {
 public:
  // `url`: "postgresql://user@host:port/db?..." (libpq's URI or key=value form). The
  // password never appears in errors.
  static Result<std::unique_ptr<PgDb>> Connect(const std::string& url);
  ~PgDb();
  PgDb(const PgDb&) = delete;
  PgDb& operator=(const PgDb&) = delete;

  // Runs one or more statements that return no rows (no parameters).
  Status Exec(const std::string& sql);
  // The rows of a query with $1..$n text parameters, every value as text ("" for NULL).
  Result<std::vector<std::vector<std::string>>> Query(const std::string& sql,
                                                      const std::vector<std::string>& params = {});
  // The one integer a query answers (COUNT(*), MAX(...)); NULL -> 0.
  Result<int64_t> QueryInt(const std::string& sql, const std::vector<std::string>& params = {});

  const std::string& where() const { return where_; }  // host:port/db, for messages

 private:
  PgDb(void* connection, std::string where) : connection_(connection), where_(std::move(where)) {}
  void* connection_;  // PGconn*
  std::string where_;
};

}  // namespace kraken::store::pg
