// Test support: a real gRPC server on a unix socket that answers the kubelet's
// PodResourcesLister.List the way a node's kubelet would. It is deliberately independent of
// kraken's .proto: it accepts any method (a generic service), records the method path the
// client asked for, and answers with protobuf bytes it encodes by hand from the field
// numbers of the kubelet's API, including fields kraken does not declare (cpu_ids,
// topology), so a client that sends the wrong path or reads the wrong numbers fails.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace kraken::k8s::testing {

struct FakeContainer {
  std::string name;
  std::vector<std::pair<std::string, std::vector<std::string>>> devices;  // resource -> ids
  std::vector<int64_t> cpu_ids;  // sent as ContainerResources.cpu_ids (field 3), unknown to kraken
};

struct FakePod {
  std::string namespace_name;
  std::string name;
  std::vector<FakeContainer> containers;
};

// The ListPodResourcesResponse bytes for `pods` (field numbers of the kubelet's v1 API).
std::string EncodeListResponse(const std::vector<FakePod>& pods);

class FakeKubelet {
 public:
  enum class Mode {
    kAnswer,       // List answers with the pods
    kNeverAnswer,  // List never answers (until the client gives up or the server stops)
  };
  explicit FakeKubelet(std::vector<FakePod> pods, Mode mode = Mode::kAnswer);
  ~FakeKubelet();  // Stop()
  FakeKubelet(const FakeKubelet&) = delete;
  FakeKubelet& operator=(const FakeKubelet&) = delete;

  // Listens on `socket_path` (a unix socket; the file is created by gRPC).
  Status Start(const std::string& socket_path);
  // Cancels calls still waiting and shuts the server down (idempotent).
  void Stop();

  int calls() const;                     // RPCs received, any method
  std::vector<std::string> methods() const;  // their paths, in order
  std::vector<size_t> request_sizes() const;  // bytes of each request message

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kraken::k8s::testing
