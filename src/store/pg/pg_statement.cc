// Prepared statements of the PostgreSQL store (pg_db.h). The store's SQL is shared with
// SQLite: `?` placeholders are numbered here. Values travel as text (doubles in their
// shortest exact form, so they read back bit for bit), blobs as binary BYTEA; results
// come back as text and are parsed per column on demand.
#include <libpq-fe.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "store/pg/pg_db.h"

namespace kraken::store::pg {
namespace {

std::string DoubleText(double value) {
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

// BYTEA's text output: "\x" then two hex digits a byte (bytea_output = hex, the default).
std::string DecodeHexBytea(std::string_view text) {
  if (text.starts_with("\\x")) text.remove_prefix(2);
  std::string bytes(text.size() / 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(HexDigit(text[2 * i]) << 4 | HexDigit(text[2 * i + 1]));
  return bytes;
}

class PgStatement final : public StatementBackend {
 public:
  PgStatement(const PgDb* db, PGconn* connection, std::string sql)
      : db_(db), connection_(connection), sql_(std::move(sql)) {}
  ~PgStatement() override { PQclear(result_); }
  PgStatement(const PgStatement&) = delete;
  PgStatement& operator=(const PgStatement&) = delete;

  void BindInt(int index, int64_t value) override { Set(index, std::to_string(value), 0); }
  void BindDouble(int index, double value) override { Set(index, DoubleText(value), 0); }
  void BindText(int index, std::string_view value) override { Set(index, std::string(value), 0); }
  void BindBlob(int index, std::string_view bytes) override { Set(index, std::string(bytes), 1); }
  void BindNull(int index) override {
    Set(index, "", 0);
    is_null_[static_cast<size_t>(index - 1)] = 1;
  }

  Result<bool> Step() override {
    if (result_ == nullptr) {
      KRAKEN_RETURN_IF_ERROR(Execute());
      row_ = 0;
    } else {
      ++row_;
    }
    blobs_.clear();
    return row_ < PQntuples(result_);
  }

  void Reset() override {
    PQclear(result_);
    result_ = nullptr;
    values_.clear();
    is_null_.clear();
    formats_.clear();
    blobs_.clear();
  }

  int64_t ColumnInt(int column) const override {
    const char* text = PQgetvalue(result_, row_, column);
    int64_t value = 0;
    std::from_chars(text, text + PQgetlength(result_, row_, column), value);
    return value;
  }
  double ColumnDouble(int column) const override {
    std::string text = ColumnText(column);
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text == "NaN") return std::nan("");
    double value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
  }
  bool ColumnIsNull(int column) const override { return PQgetisnull(result_, row_, column) != 0; }
  std::string ColumnText(int column) const override {
    return std::string(PQgetvalue(result_, row_, column), static_cast<size_t>(PQgetlength(result_, row_, column)));
  }
  std::string_view ColumnBlob(int column) const override {
    auto it = blobs_.find(column);
    if (it == blobs_.end()) it = blobs_.emplace(column, DecodeHexBytea(ColumnText(column))).first;
    return it->second;
  }

 private:
  void Set(int index, std::string value, int format) {
    size_t i = static_cast<size_t>(index - 1);
    if (values_.size() <= i) {
      values_.resize(i + 1);
      is_null_.resize(i + 1, 0);
      formats_.resize(i + 1, 0);
    }
    values_[i] = std::move(value);
    is_null_[i] = 0;
    formats_[i] = format;
  }

  Status Execute() {
    std::vector<const char*> values(values_.size());
    std::vector<int> lengths(values_.size());
    for (size_t i = 0; i < values_.size(); ++i) {
      values[i] = is_null_[i] != 0 ? nullptr : values_[i].c_str();
      lengths[i] = static_cast<int>(values_[i].size());
    }
    result_ = PQexecParams(connection_, sql_.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                           lengths.data(), formats_.data(), 0);
    ExecStatusType status = PQresultStatus(result_);
    if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) return Status::Ok();
    Status error = db_->Error(PQresultErrorMessage(result_));
    PQclear(result_);
    result_ = nullptr;
    return error;
  }

  const PgDb* db_;
  PGconn* connection_;
  std::string sql_;
  std::vector<std::string> values_;
  std::vector<char> is_null_;
  std::vector<int> formats_;
  PGresult* result_ = nullptr;
  int row_ = 0;
  mutable std::map<int, std::string> blobs_;  // decoded BYTEA of the current row
};

}  // namespace

std::string NumberPlaceholders(std::string_view sql) {
  std::string out;
  int next = 1;
  char quote = 0;  // inside '...' or "..."
  for (char c : sql) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?') {
      out.push_back('$');
      out.append(std::to_string(next++));
      continue;
    }
    out.push_back(c);
  }
  return out;
}

Result<Statement> PgDb::Prepare(std::string_view sql) {
  return Statement(std::make_unique<PgStatement>(this, static_cast<PGconn*>(connection_), NumberPlaceholders(sql)));
}

}  // namespace kraken::store::pg
