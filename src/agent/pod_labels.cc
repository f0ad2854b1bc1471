#include "agent/pod_labels.h"

#include <chrono>

#include "base/log.h"

namespace kraken::agent {

PodLabeler::PodLabeler(PodLabelOptions options) : options_(std::move(options)) {}

PodLabeler::~PodLabeler() { Stop(); }

void PodLabeler::Start() {
  if (!options_.list && options_.proc_root.empty()) return;
  Refresh();
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(stop_mutex_);
    while (!stop_cv_.wait_for(lock, std::chrono::nanoseconds(options_.refresh_ns), [this] { return stop_requested_; })) {
      lock.unlock();
      Refresh();
      lock.lock();
    }
  });
}

void PodLabeler::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    stop_requested_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PodLabeler::Refresh() {
  if (!options_.list) {  // cgroup fallback only: a refresh just ages the cache
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
    return;
  }
  Result<std::vector<k8s::PodDevices>> listed = options_.list();
  std::shared_ptr<const k8s::GpuPodMap> map;
  std::shared_ptr<const SharedHolders> holders;
  std::string state;
  if (listed.ok()) {
    holders = std::make_shared<SharedHolders>(SharedDeviceHolders(*listed));
    auto built = std::make_shared<k8s::GpuPodMap>(k8s::GpuPodMap::Build(*listed));
    state = "ok " + std::to_string(built->size()) + " " + std::to_string(built->shared_devices().size());
    if (state != last_state_)
      Log(LogLevel::kInfo, "pod attribution: %s lists %zu GPU/MIG devices with one container each, %zu shared "
          "(their processes named by /proc cgroup), %lld device ids that are no UUID",
          options_.source.c_str(), built->size(), built->shared_devices().size(),
          static_cast<long long>(built->ignored_device_ids()));
    map = std::move(built);
  } else {
    state = "error " + std::to_string(static_cast<int>(listed.status().code()));
    // No kubelet socket: a node outside Kubernetes, or the directory not mounted. Said
    // once, as information: the agent is useful without pod labels.
    if (state != last_state_)
      Log(listed.status().code() == StatusCode::kNotFound ? LogLevel::kInfo : LogLevel::kWarn,
          "pod attribution: %s; running without pod labels until it answers", listed.status().message().c_str());
  }
  last_state_ = state;
  if (options_.on_refresh) options_.on_refresh(map.get());
  std::shared_ptr<const PodPolicies> policies = RefreshPolicies(map.get());
  std::lock_guard<std::mutex> lock(mutex_);
  map_ = std::move(map);  // an error drops the old map: its pods may be gone
  holders_ = std::move(holders);
  policies_ = std::move(policies);
  uids_ = uids_from_list_;
  ++generation_;
}

std::shared_ptr<const PodPolicies> PodLabeler::RefreshPolicies(const k8s::GpuPodMap* map) {
  std::shared_ptr<const PodPolicies> previous;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    previous = policies_;
  }
  // No pod holds a GPU: no annotation can matter, and the API server is not asked.
  if (!options_.list_pods || map == nullptr || (map->size() == 0 && map->shared_devices().empty())) return previous;
  Result<std::vector<k8s::NodePod>> pods = options_.list_pods();
  if (!pods.ok()) {
    // Kept: an opted-out pod stays opted out while the API server is away.
    std::string state = "error " + std::to_string(static_cast<int>(pods.status().code()));
    if (state != last_pods_state_)
      Log(LogLevel::kWarn, "pod annotations: %s: %s; %s", options_.pods_source.c_str(),
          pods.status().message().c_str(),
          previous ? "keeping the annotations last read" : "kraken.io/profiling and kraken.io/profile-interval are not applied until it answers");
    last_pods_state_ = state;
    return previous;
  }
  uids_from_list_ = std::make_shared<PodUids>(PodUidsOf(*pods));
  auto policies = std::make_shared<PodPolicies>();
  int opted_out = 0, own_interval = 0, own_metrics = 0;
  std::map<std::string, std::string> noted;
  for (const k8s::NodePod& pod : *pods) {
    std::string note;
    PodPolicy policy = ReadPodPolicy(pod.annotations, options_.agent_interval_ns, &note);
    std::string name = pod.namespace_name + "/" + pod.name;
    if (!note.empty()) {
      // Once per pod and value, not per refresh.
      auto it = noted_.find(name);
      if (it == noted_.end() || it->second != note) Log(LogLevel::kWarn, "pod annotations: pod %s: %s", name.c_str(), note.c_str());
      noted[name] = note;
    }
    opted_out += policy.disabled;
    own_interval += !policy.disabled && policy.interval_ns > 0;
    own_metrics += !policy.disabled && policy.metrics.has_value();
    if (policy.any()) (*policies)[{pod.namespace_name, pod.name}] = policy;
  }
  noted_.swap(noted);  // pods that are gone are forgotten
  std::string state = "ok " + std::to_string(pods->size()) + " " + std::to_string(opted_out) + " " +
                      std::to_string(own_interval) + " " + std::to_string(own_metrics);
  if (state != last_pods_state_)
    Log(LogLevel::kInfo, "pod annotations: %s lists %zu pods on this node, %d opted out (kraken.io/profiling: disabled), "
        "%d with their own kraken.io/profile-interval, %d with their own kraken.io/metrics",
        options_.pods_source.c_str(), pods->size(), opted_out, own_interval, own_metrics);
  last_pods_state_ = state;
  return policies;
}

PodSnapshot PodLabeler::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {map_, policies_, holders_, uids_, generation_};
}

std::optional<k8s::PodCgroup> PodLabeler::LookUpCgroup(int64_t pid) {
  auto it = cgroup_cache_.find(pid);
  if (it != cgroup_cache_.end()) return it->second;
  std::optional<k8s::PodCgroup> found;
  Result<std::optional<k8s::PodCgroup>> read = k8s::ReadPodCgroup(pid, options_.proc_root);
  if (read.ok()) found = *read;
  cgroup_cache_.emplace(pid, found);
  return found;
}

void PodLabeler::Apply(const PodSnapshot& snapshot, const k8s::MigUuids& mig_uuids, SampleBatch& batch) {
  const std::shared_ptr<const k8s::GpuPodMap>& map = snapshot.map;
  int64_t generation = snapshot.generation;
  if (!map && options_.proc_root.empty()) return;
  // A process keeps its pod for life, but pids are reused: the cache lasts one refresh.
  if (generation != cache_generation_) {
    cgroup_cache_.clear();
    cache_generation_ = generation;
  }
  k8s::PodCgroupLookup fallback;
  if (!options_.proc_root.empty()) fallback = [this](int64_t pid) { return LookUpCgroup(pid); };
  static const k8s::GpuPodMap kEmpty;
  k8s::AttributeEntities(map ? *map : kEmpty, mig_uuids, fallback, batch.entities);
  static const SharedHolders kNoHolders;
  if (snapshot.uids) NameProcessesByPodUid(*snapshot.uids, snapshot.holders ? *snapshot.holders : kNoHolders, mig_uuids,
                                           batch.entities);
}

size_t PodLabeler::mapped_devices() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_ ? map_->size() : 0;
}

}  // namespace kraken::agent
