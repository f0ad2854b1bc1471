#include "store/database.h"

#include <cmath>

namespace kraken::store {

Statement& Statement::Int(int64_t value) {
  backend_->BindInt(next_bind_++, value);
  return *this;
}

Statement& Statement::Double(double value) {
  if (std::isnan(value)) return Null();
  backend_->BindDouble(next_bind_++, value);
  return *this;
}

Statement& Statement::Text(std::string_view value) {
  backend_->BindText(next_bind_++, value);
  return *this;
}

Statement& Statement::Blob(std::string_view bytes) {
  backend_->BindBlob(next_bind_++, bytes);
  return *this;
}

Statement& Statement::Null() {
  backend_->BindNull(next_bind_++);
  return *this;
}

Status Statement::Run() {
  auto done = Step();
  Reset();
  if (!done.ok()) return done.status();
  return Status::Ok();
}

void Statement::Reset() {
  backend_->Reset();
  next_bind_ = 1;
}

double Statement::ColumnDouble(int column) const {
  if (ColumnIsNull(column)) return std::nan("");
  return backend_->ColumnDouble(column);
}

std::optional<int64_t> Statement::ColumnOptionalInt(int column) const {
  if (ColumnIsNull(column)) return std::nullopt;
  return ColumnInt(column);
}

std::optional<double> Statement::ColumnOptionalDouble(int column) const {
  if (ColumnIsNull(column)) return std::nullopt;
  return backend_->ColumnDouble(column);
}

Result<int64_t> Db::QueryInt(std::string_view sql) {
  KRAKEN_ASSIGN_OR_RETURN(Statement stmt, Prepare(sql));
  KRAKEN_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status(StatusCode::kInternal, "query returned no row: " + std::string(sql));
  return stmt.ColumnInt(0);
}

bool IsPostgresUrl(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

Result<WriteTransaction> WriteTransaction::Begin(Db& db) {
  KRAKEN_RETURN_IF_ERROR(db.Begin(TransactionKind::kWrite));
  return WriteTransaction(&db);
}

WriteTransaction::~WriteTransaction() {
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status WriteTransaction::Commit() {
  Db* db = db_;
  db_ = nullptr;
  Status status = db->Exec("COMMIT");
  // A failed COMMIT (disk full, I/O error) may leave the transaction open: end it.
  if (!status.ok()) (void)db->Exec("ROLLBACK");
  return status;
}

Result<ReadTransaction> ReadTransaction::Begin(Db& db) {
  KRAKEN_RETURN_IF_ERROR(db.Begin(TransactionKind::kRead));
  return ReadTransaction(&db);
}

ReadTransaction::~ReadTransaction() {
  if (db_ != nullptr) (void)db_->Exec("COMMIT");
}

}  // namespace kraken::store
