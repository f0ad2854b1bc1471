// The store's schema on PostgreSQL: the same migrations as SQLite's (store/schema.h),
// translated (pg_dialect.h), each in its own transaction under an advisory lock, so that
// API replicas starting together migrate once; recorded in the same schema_migrations table.
#pragma once

#include <memory>
#include <string>

#include "store/pg/pg_db.h"

namespace kraken::store::pg {

// Brings the database up to kSchemaVersion. A database migrated by a newer kraken (a
// version above it) is refused with one line naming both versions.
Status PreparePgSchema(PgDb& db);

// Connects to the store at `url`: a writable open migrates (PreparePgSchema); a read-only
// one requires the current schema and changes nothing.
Result<std::unique_ptr<PgDb>> OpenPgStore(const std::string& url, bool writable);

}  // namespace kraken::store::pg
