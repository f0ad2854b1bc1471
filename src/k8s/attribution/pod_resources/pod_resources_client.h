// Asks the kubelet which devices its device plugins allocated to which container: the List
// call of the pod-resources API (gRPC over the unix socket the kubelet serves on every
// node; dcgm-exporter reads the same socket for its pod labels). Plain C++ on purpose: only
// pod_resources_client.cc includes gRPC, so nothing else in kraken compiles its headers.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace kraken::k8s {

inline constexpr const char* kDefaultPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";

// One resource of one container, as the kubelet listed it.
struct PodDevices {
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string resource_name;            // "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", ...
  std::vector<std::string> device_ids;  // as the device plugin named them ("GPU-...", "MIG-...")
};

// Calls PodResourcesLister.List on `socket_path`. Containers without devices yield
// nothing; every (container, resource) with devices yields one PodDevices, in the
// kubelet's order. Errors:
//  - NotFound "<path>: no such socket ..." when the path does not exist (no kubelet, or
//    the directory is not mounted into the agent's pod);
//  - Unavailable "<path>: ..." when nothing answers on it, or no answer came within
//    `deadline` (the call never waits longer);
//  - InvalidInput for any other gRPC error (e.g. UNIMPLEMENTED from a kubelet too old
//    for v1, which arrived in Kubernetes 1.20).
Result<std::vector<PodDevices>> ListPodDevices(const std::string& socket_path,
                                               std::chrono::milliseconds deadline = std::chrono::seconds(2));

}  // namespace kraken::k8s
