// A thin RAII layer over the SQLite C API: one connection, prepared statements with
// positional binders and column readers, and errors as kraken Status values. Nothing
// here knows about profiles; the store's SQL lives in the files that use it.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken::store {

class Statement;

class SqliteDb {
 public:
  // Opens (read_only) or opens-or-creates `path`. A read-only open of a missing file is
  // NotFound. busy_timeout_ms: how long a statement waits for another connection's lock.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, bool read_only, int busy_timeout_ms);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows.
  Status Exec(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);
  // The value of a one-row, one-column query (PRAGMA user_version, COUNT(*)).
  Result<int64_t> QueryInt(std::string_view sql);

  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  int64_t changes() const { return sqlite3_changes64(db_); }
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  // A Status for the connection's last error: "<what>: <sqlite message>".
  Status Error(std::string_view what, int code) const;

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// A prepared statement. Bind values with the positional binder, then Step() until it
// returns false, reading columns with the row reader; Reset() to run it again.
class Statement {
 public:
  Statement(const SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_), next_bind_(other.next_bind_) {
    other.stmt_ = nullptr;
  }
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binders fill parameters 1, 2, 3... in call order.
  Statement& Int(int64_t value);
  Statement& Double(double value);  // NaN is stored as NULL (SQLite's rule) and read back as NaN
  Statement& Text(std::string_view value);
  Statement& Blob(std::string_view bytes);
  Statement& Null();
  Statement& OptionalInt(const std::optional<int64_t>& value) { return value ? Int(*value) : Null(); }
  Statement& OptionalDouble(const std::optional<double>& value) { return value ? Double(*value) : Null(); }

  // True while a row is available, false when done.
  Result<bool> Step();
  // Steps a statement that returns no rows, then resets it for the next use.
  Status Run();
  void Reset();

  // Column readers (0-based).
  int64_t ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }
  double ColumnDouble(int column) const;  // NULL -> NaN
  bool ColumnIsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::string ColumnText(int column) const;
  std::string_view ColumnBlob(int column) const;
  std::optional<int64_t> ColumnOptionalInt(int column) const;
  std::optional<double> ColumnOptionalDouble(int column) const;

 private:
  const SqliteDb* db_;
  sqlite3_stmt* stmt_;
  int next_bind_ = 1;
};

// Reads consecutive columns of the current row: `RowReader r(stmt); r.Int(); r.Text();`.
class RowReader {
 public:
  explicit RowReader(const Statement& stmt, int first_column = 0) : stmt_(stmt), column_(first_column) {}
  int64_t Int() { return stmt_.ColumnInt(column_++); }
  int32_t Int32() { return static_cast<int32_t>(stmt_.ColumnInt(column_++)); }
  bool Bool() { return stmt_.ColumnInt(column_++) != 0; }
  double Double() { return stmt_.ColumnDouble(column_++); }
  std::string Text() { return stmt_.ColumnText(column_++); }
  std::string_view Blob() { return stmt_.ColumnBlob(column_++); }
  std::optional<int64_t> OptionalInt() { return stmt_.ColumnOptionalInt(column_++); }
  std::optional<double> OptionalDouble() { return stmt_.ColumnOptionalDouble(column_++); }

 private:
  const Statement& stmt_;
  int column_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed uncommitted. IMMEDIATE takes the
// write lock at the start, so two writers wait on the busy timeout instead of failing
// with a deadlock when a read transaction would have to be upgraded.
class WriteTransaction {
 public:
  static Result<WriteTransaction> Begin(SqliteDb& db);
  WriteTransaction(WriteTransaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  WriteTransaction& operator=(WriteTransaction&&) = delete;
  ~WriteTransaction();
  Status Commit();

 private:
  explicit WriteTransaction(SqliteDb* db) : db_(db) {}
  SqliteDb* db_;
};

// BEGIN ... COMMIT around reads: every query inside sees one snapshot of the database,
// even while another process commits (WAL) or deletes a profile being read.
class ReadTransaction {
 public:
  static Result<ReadTransaction> Begin(SqliteDb& db);
  ReadTransaction(ReadTransaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  ReadTransaction& operator=(ReadTransaction&&) = delete;
  ~ReadTransaction();

 private:
  explicit ReadTransaction(SqliteDb* db) : db_(db) {}
  SqliteDb* db_;
};

}  // namespace kraken::store
