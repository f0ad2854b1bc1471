// The pods of one node as the API server lists them, reduced to what the agent needs: the
// namespace, the name and the kraken.io/* annotations a user sets to opt a pod out of
// profiling or to give it its own sampling interval (docs/pod-attribution.md "Pod annotations
// in the agent"). One LIST per call: GET /api/v1/pods?fieldSelector=spec.nodeName%3D<node>.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "k8s/client/kube_client.h"

namespace kraken::k8s {

struct NodePod {
  std::string namespace_name;
  std::string name;
  // Only the "kraken.io/" and "kraken.keti.ai/" keys: a pod's other annotations
  // (last-applied configurations of many kilobytes) are not kept between refreshes.
  std::map<std::string, std::string> annotations;
  std::string uid = "";  // metadata.uid: what /proc/<pid>/cgroup names (pod attribution on shared GPUs)
};

// "/api/v1/pods?fieldSelector=spec.nodeName%3D<node>" (node names are DNS subdomains:
// nothing else in them needs escaping).
std::string NodePodsPath(std::string_view node);

// The items of a PodList (v1). Fields other than metadata.namespace, metadata.name, metadata.uid and
// metadata.annotations are skipped; an item without a name is left out.
Result<std::vector<NodePod>> ParsePodList(std::string_view json);

// LISTs the pods scheduled on `node` through `client` and parses them.
Result<std::vector<NodePod>> ListNodePods(const KubeClient& client, const std::string& node);

}  // namespace kraken::k8s
