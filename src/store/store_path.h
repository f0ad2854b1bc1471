// Where the store lives when no --db is given.
#pragma once

#include <string>

namespace kraken {

// $KRAKEN_STORAGE_PATH (a folder there means FOLDER/kraken.db), else
// $XDG_DATA_HOME/kraken/kraken.db, else ~/.local/share/kraken/kraken.db.
std::string DefaultStorePath();

// The store's location as messages show it: a PostgreSQL URL loses its password and its
// options (which may carry one); a file path is unchanged.
std::string StoreLocationForDisplay(const std::string& location);

}  // namespace kraken
