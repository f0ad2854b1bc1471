#include "app/store_access.h"

#include <ctime>
#include <filesystem>

#include "base/text.h"
#include "store/database.h"
#include "store/store_path.h"

namespace kraken {

std::string ResolveDbPath(const std::string& db_flag) { return db_flag.empty() ? DefaultStorePath() : db_flag; }

Result<std::unique_ptr<ProfileStore>> OpenStoreForReading(const std::string& db_flag) {
  std::string path = ResolveDbPath(db_flag);
  if (!store::IsPostgresUrl(path) && !std::filesystem::exists(path))
    return NotFound(path + ": no profile database here (store profiles with `kraken import --db FILE...`)");
  return ProfileStore::Open(path, {.read_only = true});
}

Result<std::unique_ptr<ProfileStore>> OpenStoreForWriting(const std::string& db_flag) {
  return ProfileStore::Open(ResolveDbPath(db_flag));
}

std::optional<int64_t> ParseProfileRef(std::string_view argument) {
  if (argument.substr(0, 3) == "db:") argument.remove_prefix(3);
  if (argument.empty() || argument.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  auto id = ParseInt64(argument);
  if (!id || *id <= 0) return std::nullopt;
  return *id;
}

Result<int64_t> ParseProfileId(std::string_view argument) {
  auto id = ParseProfileRef(argument);
  if (!id) {
    // Appended piece by piece: GCC 12's -Wrestrict misfires on "'" + std::string(...) here.
    std::string message = "'";
    message.append(argument).append("' is not a profile id (see `kraken list`)");
    return InvalidInput(std::move(message));
  }
  return *id;
}

std::string FormatUtc(TimeNs time_ns) {
  std::time_t seconds = static_cast<std::time_t>(time_ns / 1'000'000'000);
  std::tm utc{};
  if (gmtime_r(&seconds, &utc) == nullptr) return std::to_string(time_ns) + " ns";
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

}  // namespace kraken
