// Test support: a loopback HTTP server that plays the API server for the agent's pod LIST
// (node_pods.h). It records every request (method, target as sent, decoded path, the
// fieldSelector parameter, Authorization) and answers GET /api/v1/pods with the PodList
// set by SetPods (status 200), or with the status set by Fail.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "k8s/client/in_cluster_config.h"

namespace kraken::k8s::testing {

struct FakePodApiRequest {
  std::string method, target, path, field_selector, authorization;
};

struct FakeApiPod {
  std::string namespace_name;
  std::string name;
  std::map<std::string, std::string> annotations;
  std::string uid = "8f4c";  // metadata.uid
};

class FakePodApi {
 public:
  FakePodApi();  // listening on 127.0.0.1, a free port
  ~FakePodApi();
  FakePodApi(const FakePodApi&) = delete;
  FakePodApi& operator=(const FakePodApi&) = delete;

  // The pods of the answer, rendered as a v1 PodList with spec and status, as the API
  // server sends them (fields the client must skip).
  void SetPods(const std::string& node, const std::vector<FakeApiPod>& pods);
  void Fail(int status);
  std::vector<FakePodApiRequest> requests() const;
  // http://127.0.0.1:<port>, token "test-token".
  KubeConfig Config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kraken::k8s::testing
