// Which profile database a request uses and how it is opened, and telling a stored
// profile's id ("12", "db:12") from a file name: shared by the CLI (--db), the C API
// ("db" option) and every request that accepts stored ids.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "store/store.h"

namespace kraken {

// The path a --db flag or "db" option names, or DefaultStorePath() when empty.
std::string ResolveDbPath(const std::string& db_flag);

// Opens the store for reading; a missing file is NotFound with a hint.
Result<std::unique_ptr<ProfileStore>> OpenStoreForReading(const std::string& db_flag);
Result<std::unique_ptr<ProfileStore>> OpenStoreForWriting(const std::string& db_flag);

// "12" or "db:12" -> 12; anything else (a file name) -> nullopt.
std::optional<int64_t> ParseProfileRef(std::string_view argument);
// Like ParseProfileRef, but an argument that is not an id is an error naming it.
Result<int64_t> ParseProfileId(std::string_view argument);

// "2025-06-15 12:00:00 UTC" for a Unix-epoch time in ns.
std::string FormatUtc(TimeNs time_ns);

}  // namespace kraken
