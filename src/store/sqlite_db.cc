#include "store/sqlite_db.h"

#include <cmath>
#include <filesystem>

namespace kraken::store {

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, bool read_only, int busy_timeout_ms) {
  if (read_only && !std::filesystem::exists(path)) return NotFound(path + ": no kraken database here");
  // A device or fifo is no database, and SQLite would leave a journal beside it.
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    return InvalidInput(path + ": the store must be a regular file");
  sqlite3* db = nullptr;
  int flags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
              SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return IoError(path + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

Status SqliteDb::Error(std::string_view what, int code) const {
  std::string message = path_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_);
  switch (code & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: return InvalidInput(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM: return IoError(message);
    default: return Status(StatusCode::kInternal, message);
  }
}

Status SqliteDb::Exec(std::string_view sql) {
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error("SQL failed", rc);
  return Status::Ok();
}

Result<Statement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return Error("cannot prepare '" + std::string(sql.substr(0, 40)) + "'", rc);
  return Statement(this, stmt);
}

Result<int64_t> SqliteDb::QueryInt(std::string_view sql) {
  KRAKEN_ASSIGN_OR_RETURN(Statement stmt, Prepare(sql));
  KRAKEN_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status(StatusCode::kInternal, "query returned no row: " + std::string(sql));
  return stmt.ColumnInt(0);
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    next_bind_ = other.next_bind_;
    other.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Int(int64_t value) {
  sqlite3_bind_int64(stmt_, next_bind_++, value);
  return *this;
}

Statement& Statement::Double(double value) {
  if (std::isnan(value)) return Null();
  sqlite3_bind_double(stmt_, next_bind_++, value);
  return *this;
}

Statement& Statement::Text(std::string_view value) {
  sqlite3_bind_text64(stmt_, next_bind_++, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Statement& Statement::Blob(std::string_view bytes) {
  // A zero-length blob binds as an empty blob, not NULL (the columns are NOT NULL).
  sqlite3_bind_blob64(stmt_, next_bind_++, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::Null() {
  sqlite3_bind_null(stmt_, next_bind_++);
  return *this;
}

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error("statement failed", rc);
}

Status Statement::Run() {
  auto done = Step();
  Reset();
  if (!done.ok()) return done.status();
  return Status::Ok();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  next_bind_ = 1;
}

double Statement::ColumnDouble(int column) const {
  if (ColumnIsNull(column)) return std::nan("");
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::ColumnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  int size = sqlite3_column_bytes(stmt_, column);
  return text == nullptr ? std::string() : std::string(text, static_cast<size_t>(size));
}

std::string_view Statement::ColumnBlob(int column) const {
  const auto* data = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  int size = sqlite3_column_bytes(stmt_, column);
  return data == nullptr ? std::string_view() : std::string_view(data, static_cast<size_t>(size));
}

std::optional<int64_t> Statement::ColumnOptionalInt(int column) const {
  if (ColumnIsNull(column)) return std::nullopt;
  return ColumnInt(column);
}

std::optional<double> Statement::ColumnOptionalDouble(int column) const {
  if (ColumnIsNull(column)) return std::nullopt;
  return sqlite3_column_double(stmt_, column);
}

Result<WriteTransaction> WriteTransaction::Begin(SqliteDb& db) {
  KRAKEN_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  return WriteTransaction(&db);
}

WriteTransaction::~WriteTransaction() {
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status WriteTransaction::Commit() {
  SqliteDb* db = db_;
  db_ = nullptr;
  Status status = db->Exec("COMMIT");
  // A failed COMMIT (disk full, I/O error) leaves the transaction open: end it.
  if (!status.ok()) (void)db->Exec("ROLLBACK");
  return status;
}

Result<ReadTransaction> ReadTransaction::Begin(SqliteDb& db) {
  KRAKEN_RETURN_IF_ERROR(db.Exec("BEGIN"));
  return ReadTransaction(&db);
}

ReadTransaction::~ReadTransaction() {
  if (db_ != nullptr) (void)db_->Exec("COMMIT");
}

}  // namespace kraken::store
