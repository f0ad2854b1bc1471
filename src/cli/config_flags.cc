#include "cli/config_flags.h"

#include <cstdio>

namespace kraken::cli {

void ConfigFlags::AddConfigFlag(CLI::App* cmd) {
  cmd->add_option("--config", config_file_,
                  "YAML config file (default: $KRAKEN_CONFIG); flags and KRAKEN_* variables override it");
}

void ConfigFlags::AddKeyFlag(CLI::App* cmd, const std::string& flag, const std::string& key,
                             const std::string& help) {
  KeyFlag entry;
  entry.flag = flag;
  entry.key = key;
  entry.option = cmd->add_option(flag, *entry.text, help + " [config: " + key + "]");
  flags_.push_back(std::move(entry));
}

void ConfigFlags::AddKeySwitch(CLI::App* cmd, const std::string& flag, const std::string& key,
                               const std::string& value, const std::string& help) {
  KeyFlag entry;
  entry.flag = flag;
  entry.key = key;
  entry.fixed_value = value;
  entry.option = cmd->add_flag(flag, *entry.set, help + " [config: " + key + "=" + value + "]");
  flags_.push_back(std::move(entry));
}

Result<config::EffectiveConfig> ConfigFlags::Resolve() const {
  config::ConfigInputs inputs;
  inputs.config_flag = config_file_;
  inputs.environment = config::ReadEnvironment();
  for (const KeyFlag& f : flags_) {
    if (f.option == nullptr || f.option->count() == 0) continue;
    inputs.flags.push_back({f.key, f.flag, f.fixed_value.empty() ? *f.text : f.fixed_value});
  }
  Result<config::EffectiveConfig> resolved = config::ResolveConfig(inputs);
  // Keys of the file kraken does not act on: said, one line each, never silently dropped.
  if (resolved.ok())
    for (const std::string& warning : resolved->warnings) std::fprintf(stderr, "kraken: warning: %s\n", warning.c_str());
  return resolved;
}

}  // namespace kraken::cli
