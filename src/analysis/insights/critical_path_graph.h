// The dependency view of one rank that the critical-path walk follows: GPU events per
// stream with their launch calls, runtime calls classified as launch / blocking / other,
// and the flattened CPU threads. Built once per profile (O(n log n)).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/insights/cpu_segments.h"
#include "analysis/insights/critical_path.h"

namespace kraken {

struct PathGpuEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  StringId name = StringTable::kEmpty;
  CriticalPathKind kind = CriticalPathKind::kGpuCompute;
  int32_t previous_on_stream = -1;  // the event before it on its (device, stream); -1 first
  int32_t launch_call = -1;         // index into Profile::runtime_calls; -1 unlinked
};

enum class RuntimeRole : uint8_t { kOther, kLaunch, kBlocking };

class CriticalPathGraph {
 public:
  // `communication`: ClassifyCommunication(profile), which kernels are communication.
  CriticalPathGraph(const Profile& profile, const CommunicationKernels& communication);

  const Profile& profile() const { return profile_; }
  const std::vector<PathGpuEvent>& gpu_events() const { return gpu_events_; }
  const std::vector<CpuThreadSegments>& threads() const { return threads_; }
  RuntimeRole role(int32_t runtime_call) const { return roles_[runtime_call]; }
  const CpuThreadSegments* ThreadOf(int64_t pid, int64_t tid) const;
  // The GPU event ending last with end in (after, until]; -1 when none.
  int32_t LastGpuEndingIn(TimeNs after, TimeNs until) const;
  // The GPU event ending last (ties: the later start); -1 without events.
  int32_t LastGpuEvent() const;

 private:
  void CollectGpuEvents(const CommunicationKernels& communication);
  void LinkLaunches();

  const Profile& profile_;
  std::vector<PathGpuEvent> gpu_events_;
  std::vector<int32_t> by_end_;       // gpu event indices sorted by end
  std::vector<TimeNs> sorted_ends_;   // parallel to by_end_
  std::vector<RuntimeRole> roles_;    // parallel to Profile::runtime_calls
  std::vector<CpuThreadSegments> threads_;
};

// True for runtime calls after which the CPU waits for the GPU: *Synchronize and the
// synchronous cudaMemcpy/hipMemcpy (not their Async forms).
bool IsBlockingRuntimeCall(std::string_view name);

}  // namespace kraken
