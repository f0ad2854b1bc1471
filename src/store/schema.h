// The store's schema and its versions. Version N is reached by applying the migrations
// 1..N in order, each in its own transaction, recorded in schema_migrations and in
// PRAGMA user_version; PRAGMA application_id marks the file as kraken's. docs/store.md
// describes every table.
#pragma once

#include <cstdint>
#include <span>

#include "base/status.h"
#include "store/sqlite_db.h"

namespace kraken::store {

// 'KRKN': lets kraken tell its own database from any other SQLite file.
inline constexpr int64_t kKrakenApplicationId = 0x4B524B4E;
// The newest schema this build reads and writes.
inline constexpr int64_t kSchemaVersion = 3;

// One step of the schema, as SQLite DDL. The PostgreSQL store (store/pg/pg_schema.h)
// applies the same steps, translated (pg_dialect.h).
struct SchemaMigration {
  int64_t version;
  const char* description;
  const char* sql;
};
std::span<const SchemaMigration> SchemaMigrations();

// Checks that `db` is a kraken database this build can use and, when `writable`, brings a
// new or older one up to kSchemaVersion (WAL mode, incremental auto-vacuum on creation).
// Errors: "not a kraken database", "schema version N is newer than ...", a read-only open
// of a database that needs migrating.
Status PrepareSchema(SqliteDb& db, bool writable);

}  // namespace kraken::store
