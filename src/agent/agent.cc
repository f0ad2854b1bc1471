#include "agent/agent.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>

#include "agent/metric_groups.h"
#include "agent/workload_window.h"
#include "base/log.h"
#include "exporter/pod_share_exposition.h"
#include "exporter/workload_exposition.h"

namespace kraken::agent {
namespace {

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// NVML's MIG device UUIDs, which the kubelet lists for MIG slices (the model's MigInstance
// does not keep them).
k8s::MigUuids MigUuidsOf(const nvml::NvmlSampler& sampler) {
  k8s::MigUuids out;
  const auto& facts = sampler.reader().devices();
  for (size_t d = 0; d < facts.size() && d < sampler.devices().size(); ++d)
    for (const nvml::MigFacts& m : facts[d].migs)
      if (m.uuid.ok() && m.gpu_instance_id.ok())
        out[{sampler.devices()[d].uuid, static_cast<int32_t>(m.gpu_instance_id.value)}] = m.uuid.value;
  return out;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Agent::Agent(AgentOptions options, nvml::NvmlSampler& sampler, ProfileStore* store)
    : options_(std::move(options)),
      sampler_(sampler),
      store_(store),
      pod_labels_(options_.pods),
      ring_(RingCapacity(options_.ring_ns, options_.interval_ns)) {
  size_t n = sampler_.devices().size();
  due_.assign(n, 1);
  last_sampled_ns_.assign(n, 0);
  device_latest_.resize(n);
  device_passes_.assign(n, 0);
}

Agent::~Agent() {
  if (thread_.joinable()) (void)Stop();
}

Status Agent::BeginProfile() {
  ProfileMetadata metadata;
  metadata.source = "kraken agent";
  metadata.format = "nvml";
  metadata.hostname = options_.hostname;
  metadata.accelerator_vendor = Vendor::kNvidia;
  KRAKEN_ASSIGN_OR_RETURN(live_id_, store_->BeginProfile(metadata, sampler_.devices()));
  live_started_ns_ = NowNs();
  live_batches_ = 0;
  Log(LogLevel::kDebug, "store: began live profile %lld", static_cast<long long>(live_id_));
  return Status::Ok();
}

Status Agent::AbortProfile() {
  if (live_id_ == 0) return Status::Ok();
  int64_t id = live_id_;
  live_id_ = 0;
  Log(LogLevel::kDebug, "store: dropped live profile %lld (no pass since it began)", static_cast<long long>(id));
  return store_->Abort(id);
}

Status Agent::CommitProfile() {
  if (live_id_ == 0) return Status::Ok();
  int64_t id = live_id_;
  live_id_ = 0;
  KRAKEN_RETURN_IF_ERROR(store_->Commit(id));
  committed_profiles_.fetch_add(1);
  Log(LogLevel::kInfo, "store: committed profile %lld", static_cast<long long>(id));
  if (options_.on_commit) options_.on_commit(*store_, id);
  if (options_.retention_ns > 0) {
    KRAKEN_ASSIGN_OR_RETURN(int64_t deleted, store_->DeleteOlderThan(std::chrono::nanoseconds(options_.retention_ns)));
    if (deleted > 0) Log(LogLevel::kInfo, "store: retention deleted %lld profiles", static_cast<long long>(deleted));
  }
  return Status::Ok();
}

Status Agent::Start() {
  if (store_ != nullptr) {
    if (options_.retention_ns > 0)
      KRAKEN_RETURN_IF_ERROR(
          store_->DeleteOlderThan(std::chrono::nanoseconds(options_.retention_ns)).status());
    KRAKEN_RETURN_IF_ERROR(BeginProfile());
  }
  mig_uuids_ = MigUuidsOf(sampler_);
  pod_labels_.Start();
  SampleOnce();
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void Agent::UpdatePlans(const PodSnapshot& snapshot) {
  if (snapshot.generation == plan_generation_) return;  // once per refresh, not per pass
  plan_generation_ = snapshot.generation;
  if (!snapshot.policies || snapshot.policies->empty() || !snapshot.map) {
    plans_.clear();
    return;
  }
  // From the ring's newest pass to one copy per GPU: the first pass under plans samples
  // every GPU, so that each has its copy before any is skipped.
  if (plans_.empty()) std::fill(last_sampled_ns_.begin(), last_sampled_ns_.end(), 0);
  plans_ = PlanDevices(sampler_.devices(), mig_uuids_, *snapshot.map, *snapshot.policies, options_.interval_ns);
}

bool Agent::MarkDue(int64_t now_ns) {
  bool all = true;
  for (size_t d = 0; d < due_.size(); ++d) {
    int64_t interval = d < plans_.size() ? plans_[d].interval_ns : options_.interval_ns;
    // Half a tick of slack: a 1 s GPU on 100 ms ticks is sampled every 10th pass, not
    // every 11th because a tick came a little early.
    bool due = last_sampled_ns_[d] == 0 || interval <= options_.interval_ns ||
               now_ns - last_sampled_ns_[d] >= interval - options_.interval_ns / 2;
    due_[d] = due;
    if (due) last_sampled_ns_[d] = now_ns;
    all = all && due;
  }
  return all;
}

void Agent::SampleOnce() {
  auto start = std::chrono::steady_clock::now();
  PodSnapshot pods = pod_labels_.snapshot();
  UpdatePlans(pods);
  bool all_due = MarkDue(SteadyNs());
  sampler_.Sample(raw_, all_due ? std::span<const uint8_t>() : std::span<const uint8_t>(due_));
  CopyEnabledMetrics(options_.metrics, raw_, filtered_, &filtered_spare_);
  pod_labels_.Apply(pods, mig_uuids_, filtered_);
  if (!plans_.empty()) KeepRequestedMetrics(plans_, filtered_, filtered_spare_);
  const SampleBatch* recorded = &filtered_;
  if (!plans_.empty() && MarkOptedOut(plans_, filtered_, opted_out_, pods.policies.get())) {
    StripOptedOut(opted_out_, filtered_, filtered_spare_);
    // Entities keep their indices through the strip; the copy drops them.
    CopyWithoutOptedOut(opted_out_, filtered_, recorded_, remap_, recorded_spare_);
    recorded = &recorded_;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bool store_failed = false;
  if (store_ != nullptr && live_id_ != 0) {
    Status status = store_->AppendBatch(live_id_, *recorded);
    if (status.ok()) ++live_batches_;
    if (!status.ok()) {
      store_failed = true;
      Log(LogLevel::kWarn, "store: %s", status.message().c_str());
    } else if (NowNs() - live_started_ns_ >= options_.commit_interval_ns) {
      // One profile per commit interval: each becomes visible (kraken list) when it is
      // committed, and retention can delete old ones whole.
      status = CommitProfile();
      if (status.ok()) status = BeginProfile();
      if (!status.ok()) {
        store_failed = true;
        Log(LogLevel::kWarn, "store: %s", status.message().c_str());
      }
    }
    if (!status.ok() && store_status_.ok()) store_status_ = status;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ring_.Push(*recorded);
    // Without pod policies every pass has every GPU: /metrics renders the ring's newest
    // pass and nothing is copied per GPU.
    per_device_ = !plans_.empty();
    if (per_device_) KeepNewestPerDevice(filtered_, due_, device_latest_, remap_);
    HoldSlowValues(filtered_, due_.size(), held_slow_);
    const nvml::Frame& frame = sampler_.last_frame();
    process_read_.assign(due_.size(), 0);
    for (size_t d = 0; d < due_.size() && d < frame.devices.size(); ++d)
      process_read_[d] = due_[d] != 0 && frame.devices[d].process_utilization_read ? 1 : 0;
    HoldProcessValues(filtered_, process_read_, held_processes_);
    for (size_t d = 0; d < due_.size(); ++d) device_passes_[d] += due_[d];
    ++stats_.samples_total;
    stats_.last_sample_duration_seconds = seconds;
    if (store_failed) ++stats_.store_errors_total;
  }
  int64_t now = SteadyNs();
  if (last_analysis_ns_ == 0 || now - last_analysis_ns_ >= options_.analysis_interval_ns) {
    last_analysis_ns_ = now;
    AnalyzeWindow();
  }
}

void Agent::AnalyzeWindow() {
  // Only this thread writes the ring, so reading it here needs no lock; scrapes keep
  // rendering the previous analysis until the new one is swapped in.
  size_t count = std::min(RingCapacity(options_.analysis_window_ns, options_.interval_ns), ring_.size());
  std::vector<const SampleBatch*> passes(count);
  for (size_t i = 0; i < count; ++i) passes[count - 1 - i] = &ring_.FromNewest(i);
  std::vector<GpuWindowAnalysis> analyses = AnalyzeWorkloadWindow(passes, sampler_.devices(), options_.hostname);
  // Passes from before a pod opted out still hold its GPU: it leaves the analysis at once.
  if (!plans_.empty())
    std::erase_if(analyses, [this](const GpuWindowAnalysis& a) {
      if (a.entity.gpu_index < 0 || static_cast<size_t>(a.entity.gpu_index) >= plans_.size()) return false;
      const DevicePlan& plan = plans_[static_cast<size_t>(a.entity.gpu_index)];
      return plan.gpu_opted_out ||
             std::find(plan.opted_out_instances.begin(), plan.opted_out_instances.end(), a.entity.gpu_instance_id) !=
                 plan.opted_out_instances.end();
    });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    analyses_.swap(analyses);
  }
  // The analysis copies the window into profiles (~1.6 MB for 600 passes of 8 GPUs) and
  // frees them; glibc keeps freed arena memory mapped, which showed as +1.7 MB of steady
  // RSS (bench/agent_cpu_rss.sh). Hand it back: one call per analysis, not per pass.
  malloc_trim(0);
}

void Agent::Run() {
  auto next = std::chrono::steady_clock::now();
  const auto interval = std::chrono::nanoseconds(options_.interval_ns);
  std::unique_lock<std::mutex> lock(stop_mutex_);
  while (true) {
    next += interval;
    auto now = std::chrono::steady_clock::now();
    // A pass that overran skips the slots it missed rather than bursting to catch up.
    if (next < now) next = now + interval - (now - next) % interval;
    if (stop_cv_.wait_until(lock, next, [this] { return stop_requested_; })) break;
    lock.unlock();
    SampleOnce();
    lock.lock();
  }
}

Status Agent::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    stop_requested_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  pod_labels_.Stop();
  if (store_ != nullptr) {
    // A profile begun after the last pass (at a commit, or a stop before the first pass)
    // holds nothing: it is dropped, so that `kraken list` never shows an empty profile.
    Status status = live_batches_ > 0 ? CommitProfile() : AbortProfile();
    if (!status.ok() && store_status_.ok()) store_status_ = status;
  }
  return store_status_;
}

void Agent::RenderMetrics(std::string& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  exporter::ExpositionInput input;
  // Every GPU's newest sample: a pass that skipped a GPU (its pod's interval) or an
  // opted-out GPU (not in the ring) still shows its last values.
  if (per_device_) {
    ConcatDevices(device_latest_, shown_);
    input.batch = &shown_;
  } else {
    input.batch = ring_.Latest();
  }
  // Between the sampler's slow reads a pass has no energy, PCIe or process utilization
  // values: show the last (process utilization while the process runs).
  if (input.batch != nullptr &&
      (MissesHeldValues(*input.batch, held_slow_) || MissesHeldProcessValues(*input.batch, held_processes_))) {
    if (input.batch != &shown_) shown_ = *input.batch;
    AddHeldValues(held_slow_, shown_);
    AddHeldProcessValues(held_processes_, shown_);
    input.batch = &shown_;
  }
  input.devices = &sampler_.devices();
  input.hostname = options_.hostname;
  input.agent = &stats_;
  exporter::RenderExposition(input, out);
  exporter::RenderWorkloadWindow(analyses_, input, out);
  exporter::RenderPodGpuShares(input, out);
}

void Agent::RenderRing(int64_t since_ns, size_t max_passes, std::string& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  RenderRingJson(ring_, since_ns, std::min(max_passes, kMaxRingPassesServed), options_.hostname,
                 committed_profiles_.load(), out);
}

size_t Agent::ring_size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ring_.size();
}

int64_t Agent::device_passes(size_t device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return device < device_passes_.size() ? device_passes_[device] : 0;
}

int64_t Agent::samples_total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_.samples_total;
}

}  // namespace kraken::agent
