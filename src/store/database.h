// The database the store's SQL runs on, whichever engine it is: one connection, prepared
// statements with positional binders and column readers, and transactions. SQLite
// (sqlite_db.h, the embedded default) and PostgreSQL (pg/pg_db.h, the store many writers
// share) implement it; the store's queries are written once, with `?` placeholders, in
// the SQL both engines accept (docs/store.md "PostgreSQL"). Nothing here knows profiles.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken::store {

enum class Dialect { kSqlite, kPostgres };

// One engine's prepared statement; Statement is the value the store code holds.
// Parameters are 1-based, columns 0-based, as in SQLite.
class StatementBackend {
 public:
  virtual ~StatementBackend() = default;
  virtual void BindInt(int index, int64_t value) = 0;
  virtual void BindDouble(int index, double value) = 0;  // never NaN (Statement binds NULL)
  virtual void BindText(int index, std::string_view value) = 0;
  virtual void BindBlob(int index, std::string_view bytes) = 0;
  virtual void BindNull(int index) = 0;
  virtual Result<bool> Step() = 0;
  virtual void Reset() = 0;  // keeps nothing bound
  virtual int64_t ColumnInt(int column) const = 0;
  virtual double ColumnDouble(int column) const = 0;  // not called on NULL
  virtual bool ColumnIsNull(int column) const = 0;
  virtual std::string ColumnText(int column) const = 0;
  // Valid until the next Step or Reset.
  virtual std::string_view ColumnBlob(int column) const = 0;
};

// A prepared statement. Bind values with the positional binder, then Step() until it
// returns false, reading columns with the row reader; Reset() to run it again.
class Statement {
 public:
  explicit Statement(std::unique_ptr<StatementBackend> backend) : backend_(std::move(backend)) {}
  Statement(Statement&&) noexcept = default;
  Statement& operator=(Statement&&) noexcept = default;

  // Binders fill parameters 1, 2, 3... in call order.
  Statement& Int(int64_t value);
  Statement& Double(double value);  // NaN is stored as NULL (SQLite's rule) and read back as NaN
  Statement& Text(std::string_view value);
  Statement& Blob(std::string_view bytes);
  Statement& Null();
  Statement& OptionalInt(const std::optional<int64_t>& value) { return value ? Int(*value) : Null(); }
  Statement& OptionalDouble(const std::optional<double>& value) { return value ? Double(*value) : Null(); }

  // True while a row is available, false when done.
  Result<bool> Step() { return backend_->Step(); }
  // Steps a statement that returns no rows, then resets it for the next use.
  Status Run();
  void Reset();

  // Column readers (0-based).
  int64_t ColumnInt(int column) const { return backend_->ColumnInt(column); }
  double ColumnDouble(int column) const;  // NULL -> NaN
  bool ColumnIsNull(int column) const { return backend_->ColumnIsNull(column); }
  std::string ColumnText(int column) const { return backend_->ColumnText(column); }
  std::string_view ColumnBlob(int column) const { return backend_->ColumnBlob(column); }
  std::optional<int64_t> ColumnOptionalInt(int column) const;
  std::optional<double> ColumnOptionalDouble(int column) const;

 private:
  std::unique_ptr<StatementBackend> backend_;
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

enum class TransactionKind { kRead, kWrite };

class Db {
 public:
  virtual ~Db() = default;
  virtual Dialect dialect() const = 0;
  // The file path, or the PostgreSQL URL without its password: for messages.
  virtual const std::string& path() const = 0;
  // Runs one or more statements that return no rows.
  virtual Status Exec(std::string_view sql) = 0;
  // `sql` uses `?` placeholders whatever the engine.
  virtual Result<Statement> Prepare(std::string_view sql) = 0;
  // SQLite: BEGIN IMMEDIATE for writes (writers queue on the lock), BEGIN for reads.
  // PostgreSQL: BEGIN (read committed) for writes, a repeatable-read snapshot for reads.
  virtual Status Begin(TransactionKind kind) = 0;
  // True when the connection is gone for good (a PostgreSQL server restarted or
  // unreachable): a pool drops such a connection instead of lending it again.
  virtual bool ConnectionLost() const { return false; }
  // The value of a one-row, one-column query (COUNT(*)).
  Result<int64_t> QueryInt(std::string_view sql);
};

// True for "postgresql://..." and "postgres://...": the store is a PostgreSQL database.
bool IsPostgresUrl(std::string_view location);

// BEGIN ... COMMIT around writes; rolls back when destroyed uncommitted.
class WriteTransaction {
 public:
  static Result<WriteTransaction> Begin(Db& db);
  WriteTransaction(WriteTransaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  WriteTransaction& operator=(WriteTransaction&&) = delete;
  ~WriteTransaction();
  Status Commit();

 private:
  explicit WriteTransaction(Db* db) : db_(db) {}
  Db* db_;
};

// BEGIN ... COMMIT around reads: every query inside sees one snapshot of the database,
// even while another connection commits or deletes a profile being read.
class ReadTransaction {
 public:
  static Result<ReadTransaction> Begin(Db& db);
  ReadTransaction(ReadTransaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  ReadTransaction& operator=(ReadTransaction&&) = delete;
  ~ReadTransaction();

 private:
  explicit ReadTransaction(Db* db) : db_(db) {}
  Db* db_;
};

}  // namespace kraken::store
