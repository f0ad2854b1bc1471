#include "store/pg/pg_db.h"

#include <libpq-fe.h>

#include "base/text.h"
#include "store/store_path.h"

namespace kraken::store::pg {
namespace {

std::string OneLine(const char* message) {
  std::string text;
  for (const char* c = message != nullptr ? message : ""; *c != '\0'; ++c) {
    bool space = *c == '\n' || *c == '\t' || *c == ' ';
    if (space && (text.empty() || text.back() == ' ')) continue;  // one space for a run of them
    text.push_back(space ? ' ' : *c);
  }
  if (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

Result<std::unique_ptr<PgDb>> PgDb::Connect(const std::string& url) {
  PGconn* connection = PQconnectdb(url.c_str());
  std::string where;
  if (connection != nullptr && PQstatus(connection) == CONNECTION_OK) {
    // NOTICEs ("relation ... already exists, skipping") are not kraken's to print.
    PQsetNoticeProcessor(connection, [](void*, const char*) {}, nullptr);
    where = std::string(PQhost(connection)) + ":" + PQport(connection) + "/" + PQdb(connection);
    std::string location = std::string("postgresql://") + PQuser(connection) + "@" + where;
    return std::unique_ptr<PgDb>(new PgDb(connection, where, location));
  }
  std::string why = connection != nullptr ? OneLine(PQerrorMessage(connection)) : "out of memory";
  if (connection != nullptr) PQfinish(connection);
  // The location without its password: the message may end up in a log.
  return Unavailable("PostgreSQL " + StoreLocationForDisplay(url) + ": cannot connect: " + why);
}

PgDb::~PgDb() { PQfinish(static_cast<PGconn*>(connection_)); }

Status PgDb::Error(const char* libpq_message) const {
  return IoError("PostgreSQL " + where_ + ": " + OneLine(libpq_message));
}

bool PgDb::ConnectionLost() const { return PQstatus(static_cast<PGconn*>(connection_)) != CONNECTION_OK; }

Status PgDb::Begin(TransactionKind kind) {
  // Writes: read committed, so that a unique key another writer holds makes this one
  // wait for its commit and then see its rows (upload_keys.cc). Reads: one snapshot.
  return Exec(kind == TransactionKind::kWrite ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
}

Status PgDb::Exec(std::string_view sql) {
  PGresult* result = PQexec(static_cast<PGconn*>(connection_), std::string(sql).c_str());
  ExecStatusType status = PQresultStatus(result);
  std::string error = OneLine(PQresultErrorMessage(result));
  PQclear(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return IoError("PostgreSQL " + where_ + ": " + error);
  return Status::Ok();
}

Result<std::vector<std::vector<std::string>>> PgDb::Query(const std::string& sql,
                                                          const std::vector<std::string>& params) {
  std::vector<const char*> values;
  for (const std::string& p : params) values.push_back(p.c_str());
  PGresult* result = PQexecParams(static_cast<PGconn*>(connection_), sql.c_str(), static_cast<int>(values.size()),
                                  nullptr, values.data(), nullptr, nullptr, 0);
  if (PQresultStatus(result) != PGRES_TUPLES_OK && PQresultStatus(result) != PGRES_COMMAND_OK) {
    std::string error = OneLine(PQresultErrorMessage(result));
    PQclear(result);
    return IoError("PostgreSQL " + where_ + ": " + error);
  }
  std::vector<std::vector<std::string>> rows(static_cast<size_t>(PQntuples(result)));
  for (int r = 0; r < PQntuples(result); ++r)
    for (int c = 0; c < PQnfields(result); ++c) rows[static_cast<size_t>(r)].emplace_back(PQgetvalue(result, r, c));
  PQclear(result);
  return rows;
}

Result<int64_t> PgDb::QueryInt(const std::string& sql, const std::vector<std::string>& params) {
  KRAKEN_ASSIGN_OR_RETURN(auto rows, Query(sql, params));
  if (rows.empty() || rows[0].empty() || rows[0][0].empty()) return int64_t{0};
  std::optional<int64_t> value = ParseInt64(rows[0][0]);
  if (!value) return IoError("PostgreSQL " + where_ + ": '" + rows[0][0] + "' is not an integer");
  return *value;
}

}  // namespace kraken::store::pg
