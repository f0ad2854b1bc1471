#include "config/config.h"

#include <cstdlib>

#include "base/text.h"
#include "config/config_file.h"
#include "config/config_keys.h"

namespace kraken::config {
namespace {

constexpr const char* kEnvironmentVariables[] = {"KRAKEN_CONFIG", "KRAKEN_LOG_LEVEL", "KRAKEN_STORAGE_PATH",
                                                 "KRAKEN_NVML_LIBRARY", "NODE_NAME"};

}  // namespace

std::string DescribeSource(const ValueSource& source) {
  switch (source.origin) {
    case ValueOrigin::kDefault: return "default";
    case ValueOrigin::kFile: return "file " + source.where;
    case ValueOrigin::kEnvironment: return "env " + source.where;
    case ValueOrigin::kFlag: return "flag " + source.where;
  }
  return "default";
}

std::map<std::string, std::string> ReadEnvironment() {
  std::map<std::string, std::string> out;
  for (const char* name : kEnvironmentVariables) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') out[name] = value;
  }
  return out;
}

Result<EffectiveConfig> ResolveConfig(const ConfigInputs& inputs) {
  EffectiveConfig effective;
  for (const KeySpec& key : KeySpecs()) effective.sources[std::string(key.info.name)] = ValueSource{};

  // The file: --config, else KRAKEN_CONFIG.
  auto env_config = inputs.environment.find("KRAKEN_CONFIG");
  if (!inputs.config_flag.empty()) {
    effective.file = inputs.config_flag;
    effective.file_from = {ValueOrigin::kFlag, "--config"};
  } else if (env_config != inputs.environment.end()) {
    effective.file = env_config->second;
    effective.file_from = {ValueOrigin::kEnvironment, "KRAKEN_CONFIG"};
  }
  if (!effective.file.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(std::vector<FileSetting> settings, ReadConfigFile(effective.file));
    for (const FileSetting& s : settings) {
      std::string where = effective.file + ":" + std::to_string(s.line);
      const KeySpec* spec = FindKey(s.key);
      if (spec == nullptr)
        return InvalidInput(where + ": key '" + s.key + "' is not a kraken setting (`kraken config --print` lists them)");
      Status status = spec->set(s.text, effective.values);
      if (!status.ok()) return InvalidInput(where + ": " + s.key + ": " + status.message());
      effective.sources[s.key] = {ValueOrigin::kFile, where};
    }
  }

  // The environment, then the flags.
  for (const KeySpec& spec : KeySpecs()) {
    if (spec.info.env.empty()) continue;
    auto it = inputs.environment.find(std::string(spec.info.env));
    if (it == inputs.environment.end()) continue;
    Status status = spec.set(it->second, effective.values);
    if (!status.ok()) return InvalidInput(std::string(spec.info.env) + ": " + status.message());
    effective.sources[std::string(spec.info.name)] = {ValueOrigin::kEnvironment, std::string(spec.info.env)};
  }
  for (const FlagValue& flag : inputs.flags) {
    const KeySpec* spec = FindKey(flag.key);
    if (spec == nullptr) return Status(StatusCode::kInternal, flag.flag + " mirrors no setting '" + flag.key + "'");
    Status status = spec->set(flag.text, effective.values);
    if (!status.ok()) return InvalidInput(flag.flag + ": " + status.message());
    effective.sources[flag.key] = {ValueOrigin::kFlag, flag.flag};
  }
  return effective;
}

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  auto bad = [&](std::string_view why) {
    // Appended piece by piece: GCC 12's -Wrestrict misfires on a chain of operator+.
    std::string message = "'";
    message.append(text).append("' is not an address HOST:PORT (").append(why).append(")");
    return InvalidInput(message);
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("write an IPv6 address in brackets, [::1]:9400");
  }
  std::optional<int64_t> port = ParseInt64(port_text);
  if (!port || *port < 0 || *port > 65535) return bad("port 0 .. 65535");
  ListenAddress out;
  out.host = host.empty() ? "0.0.0.0" : std::string(host);
  out.port = static_cast<int>(*port);
  return out;
}

}  // namespace kraken::config
