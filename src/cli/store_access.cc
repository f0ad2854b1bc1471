#include "cli/store_access.h"

namespace kraken::cli {

CLI::Option* AddDbOption(CLI::App* cmd, std::string* db) {
  return cmd->add_option("--db", *db,
                         "Profile database (default: $KRAKEN_STORAGE_PATH, else $XDG_DATA_HOME/kraken/kraken.db, "
                         "else ~/.local/share/kraken/kraken.db)");
}

}  // namespace kraken::cli
