#include "store/pg/pg_schema.h"

#include <chrono>

#include "store/pg/pg_dialect.h"
#include "store/schema.h"

namespace kraken::store::pg {
namespace {

Status ApplyPgMigration(PgDb& db, const SchemaMigration& migration) {
  KRAKEN_RETURN_IF_ERROR(db.Exec("BEGIN"));
  // Held to the commit: a second replica waits here, then sees the version and skips.
  Status status = db.Exec("SELECT pg_advisory_xact_lock(" + std::to_string(kKrakenApplicationId) + ")");
  Result<int64_t> current = status.ok() ? db.QueryInt("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
                                        : Result<int64_t>(status);
  if (current.ok() && *current < migration.version) {
    status = db.Exec(ToPostgresDdl(migration.sql));
    if (status.ok()) {
      auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::system_clock::now().time_since_epoch()).count();
      status = db.Query("INSERT INTO schema_migrations VALUES($1, $2, $3)",
                        {std::to_string(migration.version), migration.description, std::to_string(now)})
                   .status();
    }
  } else if (!current.ok()) {
    status = current.status();
  }
  if (!status.ok()) {
    (void)db.Exec("ROLLBACK");
    return status;
  }
  return db.Exec("COMMIT");
}

}  // namespace

Status PreparePgSchema(PgDb& db) {
  // Under the lock too: two CREATE TABLE IF NOT EXISTS at once can both try to create it.
  KRAKEN_RETURN_IF_ERROR(db.Exec(
      "BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kKrakenApplicationId) +
      "); CREATE TABLE IF NOT EXISTS schema_migrations(version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
      "applied_ns BIGINT NOT NULL); COMMIT"));
  KRAKEN_ASSIGN_OR_RETURN(int64_t version, db.QueryInt("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
  if (version > kSchemaVersion)
    return InvalidInput("PostgreSQL " + db.where() + ": schema version " + std::to_string(version) +
                        " was written by a newer kraken; this one reads versions up to " +
                        std::to_string(kSchemaVersion));
  for (const SchemaMigration& migration : SchemaMigrations())
    if (migration.version > version) KRAKEN_RETURN_IF_ERROR(ApplyPgMigration(db, migration));
  return Status::Ok();
}

}  // namespace kraken::store::pg

namespace kraken::store::pg {
namespace {

Status CheckPgSchemaForReading(PgDb& db) {
  KRAKEN_ASSIGN_OR_RETURN(int64_t tables, db.QueryInt("SELECT COUNT(*) FROM information_schema.tables WHERE "
                                                      "table_schema = 'public' AND table_name = 'schema_migrations'"));
  if (tables == 0) return InvalidInput("PostgreSQL " + db.where() + ": not a kraken database (no schema_migrations)");
  KRAKEN_ASSIGN_OR_RETURN(int64_t version, db.QueryInt("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
  if (version > kSchemaVersion)
    return InvalidInput("PostgreSQL " + db.where() + ": schema version " + std::to_string(version) +
                        " was written by a newer kraken; this one reads versions up to " +
                        std::to_string(kSchemaVersion));
  if (version < kSchemaVersion)
    return InvalidInput("PostgreSQL " + db.where() + ": schema version " + std::to_string(version) +
                        " needs upgrading to " + std::to_string(kSchemaVersion) +
                        "; run a writing command (kraken import --db, kraken serve) once");
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<PgDb>> OpenPgStore(const std::string& url, bool writable) {
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<PgDb> db, PgDb::Connect(url));
  KRAKEN_RETURN_IF_ERROR(writable ? PreparePgSchema(*db) : CheckPgSchemaForReading(*db));
  return db;
}

}  // namespace kraken::store::pg
