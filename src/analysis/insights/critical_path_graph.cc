#include "analysis/insights/critical_path_graph.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kraken {

bool IsBlockingRuntimeCall(std::string_view name) {
  if (name.find("Synchronize") != std::string_view::npos) return true;
  return name == "cudaMemcpy" || name == "hipMemcpy" || name == "cuMemcpyDtoH" || name == "cuMemcpyHtoD" ||
         name == "cuMemcpyDtoH_v2" || name == "cuMemcpyHtoD_v2";
}

CriticalPathGraph::CriticalPathGraph(const Profile& profile, const CommunicationKernels& communication)
    : profile_(profile) {
  CollectGpuEvents(communication);
  LinkLaunches();
  threads_ = BuildCpuThreadSegments(profile);
}

void CriticalPathGraph::CollectGpuEvents(const CommunicationKernels& communication) {
  struct Keyed {
    std::pair<int32_t, int64_t> stream;
    int64_t correlation_id;
    PathGpuEvent event;
  };
  std::vector<Keyed> all;
  all.reserve(profile_.kernels.size() + profile_.memory_ops.size());
  for (size_t i = 0; i < profile_.kernels.size(); ++i) {
    const Kernel& k = profile_.kernels[i];
    PathGpuEvent e{k.start_ns, k.end_ns(), k.name, CriticalPathKind::kGpuCompute, -1, -1};
    if (i < communication.evidence.size() && communication.is_communication(i)) e.kind = CriticalPathKind::kGpuCommunication;
    all.push_back({{k.device, k.stream}, k.correlation_id, e});
  }
  for (const MemoryOp& m : profile_.memory_ops) {
    PathGpuEvent e{m.start_ns, m.end_ns(), m.name, CriticalPathKind::kGpuCompute, -1, -1};
    if (m.kind == MemoryOpKind::kMemcpy) e.kind = CriticalPathKind::kGpuMemcpy;
    all.push_back({{m.device, m.stream}, m.correlation_id, e});
  }
  std::sort(all.begin(), all.end(), [](const Keyed& a, const Keyed& b) {
    if (a.stream != b.stream) return a.stream < b.stream;
    return a.event.start_ns < b.event.start_ns;
  });
  // Launch links: correlation id -> runtime call index.
  std::vector<std::pair<int64_t, int32_t>> calls;
  calls.reserve(profile_.runtime_calls.size());
  for (size_t i = 0; i < profile_.runtime_calls.size(); ++i)
    calls.emplace_back(profile_.runtime_calls[i].correlation_id, static_cast<int32_t>(i));
  std::sort(calls.begin(), calls.end());
  gpu_events_.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    PathGpuEvent e = all[i].event;
    if (i > 0 && all[i - 1].stream == all[i].stream) e.previous_on_stream = static_cast<int32_t>(i - 1);
    const int64_t id = all[i].correlation_id;
    auto it = std::lower_bound(calls.begin(), calls.end(), std::make_pair(id, int32_t{-1}));
    if (id >= 0 && it != calls.end() && it->first == id) e.launch_call = it->second;
    gpu_events_.push_back(e);
  }
}

void CriticalPathGraph::LinkLaunches() {
  roles_.assign(profile_.runtime_calls.size(), RuntimeRole::kOther);
  for (size_t i = 0; i < profile_.runtime_calls.size(); ++i)
    if (IsBlockingRuntimeCall(profile_.Name(profile_.runtime_calls[i].name))) roles_[i] = RuntimeRole::kBlocking;
  for (const PathGpuEvent& e : gpu_events_)
    if (e.launch_call >= 0 && roles_[e.launch_call] == RuntimeRole::kOther) roles_[e.launch_call] = RuntimeRole::kLaunch;
  by_end_.resize(gpu_events_.size());
  for (size_t i = 0; i < by_end_.size(); ++i) by_end_[i] = static_cast<int32_t>(i);
  std::sort(by_end_.begin(), by_end_.end(), [this](int32_t a, int32_t b) {
    if (gpu_events_[a].end_ns != gpu_events_[b].end_ns) return gpu_events_[a].end_ns < gpu_events_[b].end_ns;
    return gpu_events_[a].start_ns < gpu_events_[b].start_ns;
  });
  sorted_ends_.reserve(by_end_.size());
  for (int32_t i : by_end_) sorted_ends_.push_back(gpu_events_[i].end_ns);
}

const CpuThreadSegments* CriticalPathGraph::ThreadOf(int64_t pid, int64_t tid) const {
  auto it = std::lower_bound(threads_.begin(), threads_.end(), std::make_pair(pid, tid),
                             [](const CpuThreadSegments& t, const std::pair<int64_t, int64_t>& key) {
                               return std::make_pair(t.pid, t.tid) < key;
                             });
  if (it != threads_.end() && it->pid == pid && it->tid == tid) return &*it;
  return FindThread(threads_, -1, tid);  // pid unknown or recorded differently: match the tid
}

int32_t CriticalPathGraph::LastGpuEndingIn(TimeNs after, TimeNs until) const {
  auto it = std::upper_bound(sorted_ends_.begin(), sorted_ends_.end(), until);
  if (it == sorted_ends_.begin()) return -1;
  const size_t i = static_cast<size_t>(it - sorted_ends_.begin()) - 1;
  return sorted_ends_[i] > after ? by_end_[i] : -1;
}

int32_t CriticalPathGraph::LastGpuEvent() const { return by_end_.empty() ? -1 : by_end_.back(); }

}  // namespace kraken
