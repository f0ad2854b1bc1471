// A minimal Kubernetes API client: GET an object, PATCH it, POST a new one, with the service account's
// bearer token, over https verified against the cluster CA (or http to a test server).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "k8s/client/in_cluster_config.h"

namespace kraken::k8s {

inline constexpr char kStrategicMergePatch[] = "application/strategic-merge-patch+json";
inline constexpr char kJsonMergePatch[] = "application/merge-patch+json";

class KubeClient {
 public:
  explicit KubeClient(KubeConfig config, int timeout_s = 10) : config_(std::move(config)), timeout_s_(timeout_s) {}

  // 200 -> the body; 404 -> NotFound; any other answer -> IoError with the API's message.
  Result<std::string> Get(const std::string& path) const;
  Status Patch(const std::string& path, const std::string& body, std::string_view content_type) const;
  // POST a new object to a collection path: 201 (or 200) -> Ok; anything else an error.
  Status Post(const std::string& path, const std::string& body) const;

  const KubeConfig& config() const { return config_; }

 private:
  KubeConfig config_;
  int timeout_s_;
};

}  // namespace kraken::k8s
