#include "store/sqlite_db.h"

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
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path, busy_timeout_ms));
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

Status SqliteDb::Begin(TransactionKind kind) {
  // IMMEDIATE takes the write lock at the start, so two writers wait on the busy timeout
  // instead of failing with a deadlock when a read transaction would have to be upgraded.
  return Exec(kind == TransactionKind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN");
}

namespace {

class SqliteStatement final : public StatementBackend {
 public:
  SqliteStatement(const SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void BindInt(int index, int64_t value) override { sqlite3_bind_int64(stmt_, index, value); }
  void BindDouble(int index, double value) override { sqlite3_bind_double(stmt_, index, value); }
  void BindText(int index, std::string_view value) override {
    sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  }
  void BindBlob(int index, std::string_view bytes) override {
    // A zero-length blob binds as an empty blob, not NULL (the columns are NOT NULL).
    sqlite3_bind_blob64(stmt_, index, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  }
  void BindNull(int index) override { sqlite3_bind_null(stmt_, index); }

  Result<bool> Step() override {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return db_->Error("statement failed", rc);
  }
  void Reset() override { sqlite3_reset(stmt_); }

  int64_t ColumnInt(int column) const override { return sqlite3_column_int64(stmt_, column); }
  double ColumnDouble(int column) const override { return sqlite3_column_double(stmt_, column); }
  bool ColumnIsNull(int column) const override { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::string ColumnText(int column) const override {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    int size = sqlite3_column_bytes(stmt_, column);
    return text == nullptr ? std::string() : std::string(text, static_cast<size_t>(size));
  }
  std::string_view ColumnBlob(int column) const override {
    const auto* data = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
    int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr ? std::string_view() : std::string_view(data, static_cast<size_t>(size));
  }

 private:
  const SqliteDb* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace

Result<Statement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return Error("cannot prepare '" + std::string(sql.substr(0, 40)) + "'", rc);
  return Statement(std::make_unique<SqliteStatement>(this, stmt));
}

}  // namespace kraken::store
