// The store's schema is written once, in SQLite's DDL (store/schema.cc). PostgreSQL gets
// the same tables, columns, keys and indexes through this translation of the few words
// that differ: INTEGER -> BIGINT (SQLite integers are 64-bit), REAL -> DOUBLE PRECISION,
// BLOB -> BYTEA, "INTEGER PRIMARY KEY [AUTOINCREMENT]" -> an identity column, and
// "WITHOUT ROWID" (a storage hint) dropped. Pure text in, text out.
#pragma once

#include <string>
#include <string_view>

namespace kraken::store::pg {

std::string ToPostgresDdl(std::string_view sqlite_ddl);

}  // namespace kraken::store::pg
