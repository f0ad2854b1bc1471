// Flags that mirror config keys (--interval is sampling.interval, ...): declared on a
// command, they become config::FlagValue entries when given, so that the precedence
// flag > environment > file > default is decided in one place (config/config.h).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/config.h"

namespace kraken::cli {

class ConfigFlags {
 public:
  // --config FILE on `cmd`.
  void AddConfigFlag(CLI::App* cmd);
  // A flag that sets `key` from its text, e.g. ("--interval", "sampling.interval").
  void AddKeyFlag(CLI::App* cmd, const std::string& flag, const std::string& key, const std::string& help);
  // A switch that sets `key` to `value` when present (--no-store: store.enabled=false).
  void AddKeySwitch(CLI::App* cmd, const std::string& flag, const std::string& key, const std::string& value,
                    const std::string& help);

  // Defaults, the file, KRAKEN_* variables of this process, then the flags given. Prints
  // the file's warnings (keys kraken does not act on) on standard error, one line each.
  Result<config::EffectiveConfig> Resolve() const;

 private:
  struct KeyFlag {
    std::string flag;
    std::string key;
    std::string fixed_value;  // switches
    CLI::Option* option = nullptr;
    std::shared_ptr<std::string> text = std::make_shared<std::string>();
    std::shared_ptr<bool> set = std::make_shared<bool>(false);
  };
  std::string config_file_;
  std::vector<KeyFlag> flags_;
};

}  // namespace kraken::cli
