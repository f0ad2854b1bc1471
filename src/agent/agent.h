// The agent loop: a sampler thread that runs one NVML pass per interval, keeps the passes
// in a bounded ring (the newest is what /metrics shows), ingests them into the store as
// one live profile per commit interval, and applies the store's retention after each
// commit. Scrapes read the ring from other threads; Stop() ends the thread and commits.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "agent/device_batches.h"
#include "agent/pod_labels.h"
#include "agent/sample_ring.h"
#include "collectors/nvml/nvml_sampler.h"
#include "config/config.h"
#include "exporter/exposition.h"
#include "model/gpu_window_analysis.h"
#include "store/store.h"

namespace kraken::agent {

struct AgentOptions {
  int64_t interval_ns = 100'000'000;
  int64_t ring_ns = 60'000'000'000;
  int64_t commit_interval_ns = 300'000'000'000;
  int64_t retention_ns = 0;  // 0 = keep every profile
  config::MetricGroups metrics;
  std::string hostname;
  // The kraken_* analysis (workload_window.h): the newest passes of this span (at most the
  // ring's), analysed again this often on the sampler thread, never per scrape.
  int64_t analysis_window_ns = 60'000'000'000;
  int64_t analysis_interval_ns = 15'000'000'000;
  PodLabelOptions pods;  // pod/namespace/container labels; default: none
  // Called with each committed profile (the window of one commit interval), on the
  // thread that committed it, where the store may be read; it must not block on the
  // network (docs/upload.md: the CLI hands it to an UploadWorker). Empty: nothing.
  std::function<void(ProfileStore& store, int64_t profile_id)> on_commit;
};

class Agent {
 public:
  // `store` may be null (--no-store); both must outlive the agent.
  Agent(AgentOptions options, nvml::NvmlSampler& sampler, ProfileStore* store);
  ~Agent();  // stops the thread if Stop was not called
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Begins the first live profile (when storing), applies retention once, takes the first
  // pass (so that /metrics has values before the first scrape) and starts the thread.
  Status Start();
  // Stops the thread and commits the live profile. Returns the first store error, if any.
  Status Stop();

  // The exposition of the newest pass (thread-safe; `out` reused between calls).
  void RenderMetrics(std::string& out) const;

  // The ring's passes newer than `since_ns` as JSON (sample_ring.h RenderRingJson), the
  // newest `max_passes` of them, never more than kMaxRingPassesServed (thread-safe).
  void RenderRing(int64_t since_ns, size_t max_passes, std::string& out) const;
  static constexpr size_t kMaxRingPassesServed = 600;

  // Copies of what the ring holds, for tests and the characterization (thread-safe).
  size_t ring_size() const;
  int64_t samples_total() const;
  int64_t committed_profiles() const { return committed_profiles_.load(); }
  // Passes that sampled GPU `device` (all of them unless a pod interval skips it).
  int64_t device_passes(size_t device) const;

 private:
  void Run();
  void SampleOnce();
  // Sampler thread: the device plans of the newest pod snapshot, and which GPUs are due.
  void UpdatePlans(const PodSnapshot& snapshot);
  bool MarkDue(int64_t now_ns);  // true when every GPU is
  void AnalyzeWindow();  // sampler thread
  Status BeginProfile();
  Status CommitProfile();
  Status AbortProfile();  // drops the live profile (nothing appended)

  AgentOptions options_;
  nvml::NvmlSampler& sampler_;
  ProfileStore* store_;
  SampleBatch raw_;       // the sampler's batch (sampler thread only)
  SampleBatch filtered_;  // raw_ without disabled metric groups (sampler thread only)
  SampleBatch recorded_;  // filtered_ without opted-out pods' entities: ring and store
  BatchSpare filtered_spare_, recorded_spare_;
  std::vector<int32_t> remap_;
  std::vector<uint8_t> opted_out_;  // per entity of filtered_
  // Pod policies (docs/pod-attribution.md "Pod annotations in the agent"), sampler thread only.
  std::vector<DevicePlan> plans_;  // per GPU; empty: every GPU every pass, none opted out
  int64_t plan_generation_ = -1;
  std::vector<uint8_t> due_;              // per GPU: sampled in this pass
  std::vector<int64_t> last_sampled_ns_;  // per GPU, steady clock; 0 = never
  PodLabeler pod_labels_;
  k8s::MigUuids mig_uuids_;  // of the sampler's devices, for pod labels on MIG instances

  mutable std::mutex mutex_;  // guards ring_ and stats_
  SampleRing ring_;
  exporter::AgentStats stats_;
  // The newest sample of each GPU (exposition, entity labels as shown), so that /metrics
  // keeps the last values of a GPU a pass skipped; and their concatenation per scrape.
  std::vector<SampleBatch> device_latest_;
  std::vector<int64_t> device_passes_;
  mutable SampleBatch shown_;
  // The sampler's slow values (energy, PCIe) per GPU, shown until the next slow read.
  HeldSlowValues held_slow_;
  // The same for process utilization (also read every slow interval), per GPU.
  HeldProcessValues held_processes_;
  std::vector<uint8_t> process_read_;  // per GPU: its process utilization was read in this pass
  bool per_device_ = false;  // some pod has a policy: render from device_latest_, not the ring
  std::vector<GpuWindowAnalysis> analyses_;  // guarded by mutex_; replaced whole
  int64_t last_analysis_ns_ = 0;             // steady clock; sampler thread only

  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stop_requested_ = false;
  std::thread thread_;

  int64_t live_id_ = 0;  // the live profile; 0 = none
  int64_t live_started_ns_ = 0;
  int64_t live_batches_ = 0;  // passes appended to the live profile
  Status store_status_;
  std::atomic<int64_t> committed_profiles_{0};
};

}  // namespace kraken::agent
