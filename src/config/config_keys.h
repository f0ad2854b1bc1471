// The table behind config.h: per key its parser (text -> KrakenConfig field, with the
// validation) and its printer. Flags, environment variables and the file all set keys
// through this one table, so a value means the same wherever it comes from.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "config/config.h"

namespace kraken::config {

struct KeySpec {
  ConfigKeyInfo info;
  // Parses `text` into the field; the error says what is wrong with the value (the caller
  // adds where it came from).
  Status (*set)(std::string_view text, KrakenConfig& config);
  std::string (*get)(const KrakenConfig& config);
};

const std::vector<KeySpec>& KeySpecs();
const KeySpec* FindKey(std::string_view name);

}  // namespace kraken::config
