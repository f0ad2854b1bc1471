// The --db flag every store command shares. Opening the store and telling an id from a
// file name are the request layer's (app/store_access.h).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "app/store_access.h"
#include "store/store.h"

namespace kraken::cli {

// Adds "--db PATH" to `cmd` (default: DefaultStorePath(), see docs/store.md).
CLI::Option* AddDbOption(CLI::App* cmd, std::string* db);

}  // namespace kraken::cli
