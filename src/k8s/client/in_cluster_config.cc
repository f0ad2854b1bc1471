#include "k8s/client/in_cluster_config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/small_file.h"
#include "base/text.h"

namespace kraken::k8s {
namespace {

std::optional<std::string> GetEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// The service account's token and CA: small files; 1 MiB bounds a mistaken mount.
std::optional<std::string> ReadServiceAccountFile(const std::string& path) {
  Result<std::string> text = ReadSmallFile(path, 1 * kMiB, "the service account file");
  if (!text.ok()) return std::nullopt;
  return std::string(Trim(*text));
}

}  // namespace

std::string KubeConfig::BaseUrl() const {
  bool ipv6 = host.find(':') != std::string::npos;
  return scheme + "://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<KubeConfig> LoadInClusterConfig(const std::string& dir, const EnvLookup& env_lookup) {
  EnvLookup env = env_lookup ? env_lookup : EnvLookup(GetEnv);
  std::optional<std::string> host = env("KUBERNETES_SERVICE_HOST");
  std::optional<std::string> port = env("KUBERNETES_SERVICE_PORT");
  if (!host || !port)
    return NotFound("not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  KubeConfig config;
  config.host = *host;
  std::optional<int64_t> port_number = ParseInt64(*port);
  if (!port_number || *port_number < 1 || *port_number > 65535)
    return InvalidInput("KUBERNETES_SERVICE_PORT '" + *port + "' is not a port number");
  config.port = static_cast<int>(*port_number);
  std::optional<std::string> token = ReadServiceAccountFile(dir + "/token");
  if (!token || token->empty())
    return NotFound(dir + "/token: no service account token (is automountServiceAccountToken off?)");
  config.token = *token;
  config.namespace_name = ReadServiceAccountFile(dir + "/namespace").value_or("");
  std::error_code ec;
  if (std::filesystem::exists(dir + "/ca.crt", ec)) config.ca_file = dir + "/ca.crt";
  return config;
}

Result<KubeConfig> KubeConfigFromFlags(const std::string& kube_api, const std::string& token_file) {
  if (kube_api.empty()) return LoadInClusterConfig();
  KubeConfig config;
  std::string_view url = kube_api;
  if (!StartsWith(url, "http://") && !StartsWith(url, "https://"))
    return InvalidInput("--kube-api expects http(s)://HOST:PORT, got '" + kube_api + "'");
  config.scheme = StartsWith(url, "https://") ? "https" : "http";
  url.remove_prefix(config.scheme.size() + 3);
  size_t colon = url.rfind(':');
  std::optional<int64_t> port = colon == std::string_view::npos ? std::nullopt : ParseInt64(url.substr(colon + 1));
  if (!port) return InvalidInput("--kube-api expects http(s)://HOST:PORT, got '" + kube_api + "'");
  config.host = std::string(url.substr(0, colon));
  config.port = static_cast<int>(*port);
  if (!token_file.empty()) {
    Result<std::string> text = ReadSmallFile(token_file, 64 * kKiB, "the token file");
    if (!text.ok()) return text.status().WithContext("--token-file");
    config.token = std::string(Trim(*text));
  }
  return config;
}

}  // namespace kraken::k8s
