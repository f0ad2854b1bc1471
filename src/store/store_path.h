// Where the store lives when no --db is given.
#pragma once

#include <string>

namespace kraken {

// $KRAKEN_STORAGE_PATH (a folder there means FOLDER/kraken.db), else
// $XDG_DATA_HOME/kraken/kraken.db, else ~/.local/share/kraken/kraken.db.
std::string DefaultStorePath();

}  // namespace kraken
