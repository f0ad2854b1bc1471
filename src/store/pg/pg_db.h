// The store's database on PostgreSQL (database.h; docs/store.md "PostgreSQL"): libpq, from
// Debian's libpq-dev. Plain C++ API: only pg_db.cc and pg_statement.cc include libpq-fe.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/database.h"

namespace kraken::store::pg {

class PgDb final : public Db {
 public:
  // `url`: "postgresql://user@host:port/db?..." (libpq's URI or key=value form). The
  // password never appears in errors.
  static Result<std::unique_ptr<PgDb>> Connect(const std::string& url);
  ~PgDb() override;
  PgDb(const PgDb&) = delete;
  PgDb& operator=(const PgDb&) = delete;

  Dialect dialect() const override { return Dialect::kPostgres; }
  // "postgresql://user@host:port/db": the URL without password or options.
  const std::string& path() const override { return location_; }
  // Runs one or more statements that return no rows (no parameters).
  Status Exec(std::string_view sql) override;
  // `?` placeholders become $1..$n; values go as text (blobs as binary), rows come back as text.
  Result<Statement> Prepare(std::string_view sql) override;
  Status Begin(TransactionKind kind) override;
  bool ConnectionLost() const override;

  // The rows of a query with $1..$n text parameters, every value as text ("" for NULL).
  Result<std::vector<std::vector<std::string>>> Query(const std::string& sql,
                                                      const std::vector<std::string>& params = {});
  // The one integer a query answers (COUNT(*), MAX(...)); NULL -> 0.
  Result<int64_t> QueryInt(const std::string& sql, const std::vector<std::string>& params = {});

  const std::string& where() const { return where_; }  // host:port/db, for messages
  // "PostgreSQL host:port/db: <libpq's message on one line>"
  Status Error(const char* libpq_message) const;

 private:
  PgDb(void* connection, std::string where, std::string location)
      : connection_(connection), where_(std::move(where)), location_(std::move(location)) {}
  void* connection_;  // PGconn*
  std::string where_;
  std::string location_;
};

// "SELECT ... WHERE a = ? AND b = '?'" -> "SELECT ... WHERE a = $1 AND b = '?'".
std::string NumberPlaceholders(std::string_view sql);

}  // namespace kraken::store::pg
