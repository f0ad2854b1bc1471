// Test helpers that look at a store behind its back: a file with plain SQLite, a
// PostgreSQL URL with its own connection.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "store/database.h"
#include "store/pg/pg_db.h"

namespace kraken::store::testing {

// Runs `sql` on its own connection; returns the first column of the first row as text
// ("" when there is none), failing the test on an SQLite error.
inline std::string QueryText(const std::string& path, const std::string& sql) {
  if (IsPostgresUrl(path)) {
    auto pg = pg::PgDb::Connect(path);
    auto rows = pg.ok() ? (*pg)->Query(sql) : Result<std::vector<std::vector<std::string>>>(pg.status());
    if (!rows.ok()) ADD_FAILURE() << sql << ": " << rows.status().message();
    return rows.ok() && !rows->empty() && !rows->front().empty() ? rows->front().front() : "";
  }
  sqlite3* db = nullptr;
  std::string result;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path;
  } else {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
    } else {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr)
        result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close_v2(db);
  return result;
}

inline int64_t CountRows(const std::string& path, const std::string& table) {
  return std::stoll("0" + QueryText(path, "SELECT COUNT(*) FROM " + table));
}

}  // namespace kraken::store::testing
