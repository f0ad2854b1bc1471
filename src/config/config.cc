#include "config/config.h"

#include <cstdlib>

#include "base/text.h"
#include "config/config_file.h"
#include "config/config_keys.h"
#include "config/design_config.h"

namespace kraken::config {
namespace {

constexpr const char* kEnvironmentVariables[] = {"KRAKEN_CONFIG",       "KRAKEN_LOG_LEVEL",
                                                 "KRAKEN_STORAGE_PATH", "KRAKEN_NVML_LIBRARY",
                                                 "KRAKEN_ENABLE_GPU_PROFILING", "KRAKEN_METRICS_PORT",
                                                 "NODE_NAME"};

// KRAKEN_METRICS_PORT, the port of the KRAKEN design's DaemonSet: /metrics on every
// address (the design's pods scrape it from outside), i.e. agent.listen ":PORT".
Result<std::string> ListenOfMetricsPort(std::string_view text) {
  std::optional<int64_t> port = ParseInt64(Trim(text));
  if (!port || *port < 0 || *port > 65535) {
    std::string message = "'";
    message.append(text).append("' is not a port 0 .. 65535");
    return InvalidInput(message);
  }
  std::string listen = ":";  // appended: GCC 12's -Wrestrict misfires on ":" + std::string
  listen.append(std::to_string(*port));
  return listen;
}

Status ApplySetting(const KeySpec& spec, std::string_view text, const std::string& where, const ValueSource& source,
                    EffectiveConfig& effective) {
  Status status = spec.set(text, effective.values);
  if (!status.ok()) return InvalidInput(where + ": " + status.message());
  effective.sources[std::string(spec.info.name)] = source;
  return Status::Ok();
}

// The file's kraken keys, then its KRAKEN design keys mapped onto kraken's (a key set
// both ways is an error, so that no line of the file is silently overridden).
Status ApplyFile(EffectiveConfig& effective) {
  KRAKEN_ASSIGN_OR_RETURN(std::vector<FileSetting> settings, ReadConfigFile(effective.file));
  KRAKEN_ASSIGN_OR_RETURN(DesignMapping design, MapDesignSettings(effective.file, settings));
  std::map<std::string, std::string> set_at;  // kraken key -> where the file sets it
  for (const FileSetting& s : settings) {
    if (IsDesignKey(s.key)) continue;
    std::string where = effective.file + ":" + std::to_string(s.line);
    const KeySpec* spec = FindKey(s.key);
    if (spec == nullptr)
      return InvalidInput(where + ": key '" + s.key + "' is not a kraken setting (`kraken config --print` lists them)");
    if (s.is_list) return InvalidInput(where + ": key '" + s.key + "' takes one value, not a list");
    KRAKEN_RETURN_IF_ERROR(ApplySetting(*spec, s.text, where + ": " + s.key, {ValueOrigin::kFile, where}, effective));
    set_at[s.key] = where;
  }
  for (const MappedSetting& m : design.settings) {
    std::string where = effective.file + ":" + std::to_string(m.line);
    const KeySpec* spec = FindKey(m.key);
    if (spec == nullptr) return Status(StatusCode::kInternal, m.design_key + " maps to no setting '" + m.key + "'");
    if (auto it = set_at.find(m.key); it != set_at.end() && it->second != where)
      return InvalidInput(where + ": " + m.design_key + " sets " + m.key + ", which " + it->second + " sets too");
    KRAKEN_RETURN_IF_ERROR(ApplySetting(*spec, m.text, where + ": " + m.design_key + " (" + m.key + ")",
                                        {ValueOrigin::kFile, where + " (" + m.design_key + ")"}, effective));
    set_at[m.key] = where;
  }
  effective.warnings = std::move(design.warnings);
  return Status::Ok();
}

Status ApplyEnvironment(const std::map<std::string, std::string>& environment, EffectiveConfig& effective) {
  for (const KeySpec& spec : KeySpecs()) {
    if (spec.info.env.empty()) continue;
    auto it = environment.find(std::string(spec.info.env));
    if (it == environment.end()) continue;
    std::string env(spec.info.env);
    KRAKEN_RETURN_IF_ERROR(ApplySetting(spec, it->second, env, {ValueOrigin::kEnvironment, env}, effective));
  }
  if (auto port = environment.find("KRAKEN_METRICS_PORT"); port != environment.end()) {
    Result<std::string> listen = ListenOfMetricsPort(port->second);
    if (!listen.ok()) return InvalidInput("KRAKEN_METRICS_PORT: " + listen.status().message());
    KRAKEN_RETURN_IF_ERROR(ApplySetting(*FindKey("agent.listen"), *listen, "KRAKEN_METRICS_PORT",
                                        {ValueOrigin::kEnvironment, "KRAKEN_METRICS_PORT"}, effective));
  }
  return Status::Ok();
}

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
  if (!effective.file.empty()) KRAKEN_RETURN_IF_ERROR(ApplyFile(effective));

  // The environment, then the flags.
  KRAKEN_RETURN_IF_ERROR(ApplyEnvironment(inputs.environment, effective));
  for (const FlagValue& flag : inputs.flags) {
    const KeySpec* spec = FindKey(flag.key);
    if (spec == nullptr) return Status(StatusCode::kInternal, flag.flag + " mirrors no setting '" + flag.key + "'");
    KRAKEN_RETURN_IF_ERROR(ApplySetting(*spec, flag.text, flag.flag, {ValueOrigin::kFlag, flag.flag}, effective));
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
