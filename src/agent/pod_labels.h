// Pod attribution for the agent (docs/pod-attribution.md "Pod attribution"): a thread that asks
// the kubelet's pod-resources API which container holds which GPU every `refresh_ns`, and
// the labelling of each sampling pass from the newest answer (dcgm-exporter's pod,
// namespace, container labels), with the /proc cgroup fallback for processes on devices
// the kubelet gave to no single container. The kubelet call never runs on the sampler
// thread: a slow kubelet cannot delay sampling.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/pod_policy.h"
#include "agent/shared_gpu_pods.h"
#include "k8s/attribution/node_pods.h"
#include "k8s/attribution/pod_resources/gpu_pod_map.h"
#include "model/sample_batch.h"

namespace kraken::agent {

struct PodLabelOptions {
  // What the kubelet lists (k8s::ListPodDevices bound to the socket); empty = no pod labels.
  std::function<Result<std::vector<k8s::PodDevices>>()> list;
  std::string source;             // the socket, for the log
  int64_t refresh_ns = 10'000'000'000;
  std::string proc_root;          // for /proc/<pid>/cgroup; "" = no cgroup fallback
  // The pods of this node from the API server (k8s::ListNodePods bound to the in-cluster
  // client and the node name), for kraken.io/profiling and kraken.io/profile-interval;
  // empty = annotations are not read. Asked on the same refresh, after the kubelet, and
  // only while the kubelet lists at least one GPU/MIG device.
  std::function<Result<std::vector<k8s::NodePod>>()> list_pods;
  std::string pods_source;              // for the log: "the API server (node gpu-1)"
  int64_t agent_interval_ns = 100'000'000;  // the floor of kraken.io/profile-interval
  // Called on the refresher thread after each kubelet answer with the new map (null when
  // the kubelet did not answer): the topology publisher's hook (topology_publisher.h).
  std::function<void(const k8s::GpuPodMap*)> on_refresh;
};

// What one refresh learnt, as the sampler thread sees it.
struct PodSnapshot {
  std::shared_ptr<const k8s::GpuPodMap> map;     // null: no kubelet answer
  std::shared_ptr<const PodPolicies> policies;   // null: no API server answer yet
  // Shared devices' holders (kubelet) and pod names by UID (API server), for processes on
  // shared GPUs (shared_gpu_pods.h); null like the two above.
  std::shared_ptr<const SharedHolders> holders;
  std::shared_ptr<const PodUids> uids;
  int64_t generation = 0;                        // changes with every refresh
};

class PodLabeler {
 public:
  explicit PodLabeler(PodLabelOptions options);
  ~PodLabeler();  // Stop()
  PodLabeler(const PodLabeler&) = delete;
  PodLabeler& operator=(const PodLabeler&) = delete;

  // Lists once (so that the first pass is labelled), then refreshes on a thread (without
  // `list`, the thread only ages the cgroup cache). Never fails: a missing socket is logged once as information,
  // other errors as warnings when the state changes, and the agent goes on without labels.
  void Start();
  void Stop();

  // Labels the entities of `batch` from the newest map (sampler thread).
  void Apply(const k8s::MigUuids& mig_uuids, SampleBatch& batch) { Apply(snapshot(), mig_uuids, batch); }
  // From the map of `snapshot`, so that labels and pod policies of a pass agree.
  void Apply(const PodSnapshot& snapshot, const k8s::MigUuids& mig_uuids, SampleBatch& batch);
  PodSnapshot snapshot() const;

  // For tests and the log: how many devices the newest map attributes.
  size_t mapped_devices() const;

 private:
  void Refresh();
  // The pod policies after a kubelet answer `map` (refresher thread): a new LIST, or the
  // previous policies when the API server did not answer.
  std::shared_ptr<const PodPolicies> RefreshPolicies(const k8s::GpuPodMap* map);
  std::optional<k8s::PodCgroup> LookUpCgroup(int64_t pid);
  std::shared_ptr<const PodUids> uids_from_list_;  // refresher thread: set by RefreshPolicies

  PodLabelOptions options_;
  mutable std::mutex mutex_;  // guards map_ and generation_
  std::shared_ptr<const k8s::GpuPodMap> map_;
  std::shared_ptr<const PodPolicies> policies_;
  std::shared_ptr<const SharedHolders> holders_;
  std::shared_ptr<const PodUids> uids_;
  int64_t generation_ = 0;  // bumped by every refresh; clears the cgroup cache

  // Sampler thread only.
  std::map<int64_t, std::optional<k8s::PodCgroup>> cgroup_cache_;
  int64_t cache_generation_ = -1;

  std::string last_state_;  // refresher thread only: what was last logged
  std::string last_pods_state_;  // refresher thread only
  std::map<std::string, std::string> noted_;  // pod -> annotation note already logged (refresher thread)
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stop_requested_ = false;
  std::thread thread_;
};

}  // namespace kraken::agent
