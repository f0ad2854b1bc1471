#include "store/store_path.h"

#include <cstdlib>
#include <filesystem>

#include "store/database.h"

namespace kraken {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

std::string DefaultStorePath() {
  std::string explicit_path = Env("KRAKEN_STORAGE_PATH");
  if (!explicit_path.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(explicit_path, ec))
      return (std::filesystem::path(explicit_path) / "kraken.db").string();
    return explicit_path;
  }
  // XDG base directories: a relative XDG_DATA_HOME is invalid and is ignored.
  std::string data_home = Env("XDG_DATA_HOME");
  if (!data_home.empty() && data_home[0] == '/')
    return (std::filesystem::path(data_home) / "kraken" / "kraken.db").string();
  std::string home = Env("HOME");
  std::filesystem::path base = home.empty() ? std::filesystem::current_path() : std::filesystem::path(home);
  return (base / ".local" / "share" / "kraken" / "kraken.db").string();
}

std::string StoreLocationForDisplay(const std::string& location) {
  if (!store::IsPostgresUrl(location)) return location;
  std::string shown = location.substr(0, location.find('?'));
  size_t authority = shown.find("://") + 3;
  size_t end = shown.find('/', authority);
  size_t at = shown.rfind('@', end);
  if (at != std::string::npos && at >= authority) {
    size_t colon = shown.find(':', authority);
    if (colon < at) shown.erase(colon, at - colon);
  }
  return shown;
}

}  // namespace kraken
