#include "cli/config_flags.h"

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
  return config::ResolveConfig(inputs);
}

}  // namespace kraken::cli
