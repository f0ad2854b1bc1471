// Where a pod finds the Kubernetes API server and its credentials: the environment
// variables the kubelet sets (KUBERNETES_SERVICE_HOST/PORT) and the files of the
// mounted service account (token, namespace, ca.crt), as client-go's InClusterConfig
// reads them.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/status.h"

namespace kraken::k8s {

inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

struct KubeConfig {
  std::string scheme = "https";  // tests talk to a loopback server over http
  std::string host;              // IPv6 addresses without brackets
  int port = 443;
  std::string token;           // bearer token, whitespace trimmed
  std::string namespace_name;  // the pod's own namespace
  std::string ca_file;         // PEM bundle that signs the API server's certificate

  std::string BaseUrl() const;
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Reads the in-cluster configuration. `service_account_dir` and `env` are injectable for
// tests; by default the real directory and getenv. Missing environment or token ->
// NotFound ("not running in a Kubernetes pod"); the namespace file is optional.
Result<KubeConfig> LoadInClusterConfig(const std::string& service_account_dir = kServiceAccountDir,
                                       const EnvLookup& env = {});

// The API server a command-line tool talks to: the in-cluster service account when
// `kube_api` is empty, else `kube_api` (http(s)://HOST:PORT: a test server, kubectl proxy,
// a cluster reached from outside) with the bearer token read from `token_file` (optional).
// Errors name the flag: --kube-api or --token-file.
Result<KubeConfig> KubeConfigFromFlags(const std::string& kube_api, const std::string& token_file);

}  // namespace kraken::k8s
