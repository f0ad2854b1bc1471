// The loop every table reader shares.
#pragma once

#include <string>

#include "store/database.h"

namespace kraken::store {

// Runs "SELECT <columns> FROM <table> WHERE profile_id = ? ORDER BY <order>" and calls
// `read(row)` (returning Status) for each row; stops at the first error.
template <typename ReadFn>
Status ForEachRow(Db& db, const std::string& columns, const std::string& table, int64_t id, ReadFn read,
                  const std::string& order = "seq") {
  KRAKEN_ASSIGN_OR_RETURN(Statement select, db.Prepare("SELECT " + columns + " FROM " + table +
                                                       " WHERE profile_id = ? ORDER BY " + order));
  select.Int(id);
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return Status::Ok();
    RowReader r(select);
    KRAKEN_RETURN_IF_ERROR(read(r));
  }
}

}  // namespace kraken::store
