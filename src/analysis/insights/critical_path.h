// Critical path of a rank: the chain of CPU operators, launch calls, kernels and
// synchronizations that sets each step's time, and how that time splits by kind
// ("what would shorten this step"). The chain is found by walking back from the end of
// the step and, at every point, following the dependency that was released last:
//   a GPU event waits for the previous event on its stream (kernel-kernel gap, HTA's
//   kernel_kernel_delay) or for its launch call (launch delay, HTA's kernel_launch_delay)
//   whichever finished later; a blocking CPU call (cuda*Synchronize, a synchronous
//   cudaMemcpy) waits for the last GPU event that ended inside it (HTA's sync edge);
//   any other CPU time waits for what ran before it on the same thread (HTA's
//   "operators depend serially on the previous operator of their thread").
// So the kinds' shares add up to the step's length exactly. docs/analysis.md says where
// this differs from HTA's longest-path formulation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/communication.h"
#include "analysis/intervals.h"
#include "model/profile.h"

namespace kraken {

enum class CriticalPathKind : uint8_t {
  kCpuOperator,       // CPU time inside framework operators, outside runtime calls
  kCpuLaunch,         // CPU time in runtime calls that launched a GPU event
  kCpuRuntime,        // other runtime calls (cudaMalloc, cudaEventRecord, ...)
  kCpuSync,           // a blocking call after the GPU work it waited for had ended
  kCpuIdle,           // the thread was in no operator or runtime call (Python, dataloader)
  kLaunchDelay,       // launch call returned, the stream was empty, the kernel had not started
  kGpuKernelGap,      // the stream's previous event ended, the next had not started
  kGpuCompute,        // compute kernels and memsets
  kGpuCommunication,  // communication kernels by any evidence (communication.h)
  kGpuMemcpy,         // memcpy events
  kUnattributed,      // before the first event the walk could reach
};
inline constexpr size_t kCriticalPathKinds = 11;

// Stable name of a kind for JSON and text: cpu_operator, launch_delay, gpu_compute, ...
std::string_view CriticalPathKindName(CriticalPathKind kind);
// HTA's coarse bound_by classes: cpu, launch_overhead, kernel_kernel_overhead, gpu, other.
std::string_view CriticalPathBoundBy(CriticalPathKind kind);

struct CriticalPathItem {
  std::string name;  // kernel, operator or runtime call name
  CriticalPathKind kind = CriticalPathKind::kGpuCompute;
  TimeNs time_ns = 0;  // time of this name on the path
  int64_t count = 0;   // events of this name on the path
};

struct CriticalPathWindow {
  int64_t step_number = -1;  // -1: the whole trace (no ProfilerSteps)
  Interval window;           // CPU step start to the later of its CPU end and its last GPU end
  std::array<TimeNs, kCriticalPathKinds> by_kind{};
  int64_t events_on_path = 0;

  TimeNs total_ns() const;
  double pct(CriticalPathKind kind) const;
};

struct CriticalPathReport {
  std::vector<CriticalPathWindow> windows;  // one per step, or one for the whole trace
  std::array<TimeNs, kCriticalPathKinds> by_kind{};  // summed over the windows
  std::vector<CriticalPathItem> top;  // names holding the most path time, summed over windows
  bool truncated = false;  // the walk hit its step limit (never on well-formed traces)

  TimeNs total_ns() const;
  double pct(CriticalPathKind kind) const;
  // The kind holding the most time: the first thing to shorten.
  CriticalPathKind dominant() const;
};

struct CriticalPathOptions {
  size_t top_n = 10;
};

// Empty report when the profile has no timed GPU events or no CPU events. A kernel is
// kGpuCommunication when `communication` (ClassifyCommunication of the same profile) says
// so; the overload without it classifies the profile itself.
CriticalPathReport AnalyzeCriticalPath(const Profile& profile, const CommunicationKernels& communication,
                                       const CriticalPathOptions& options = {});
CriticalPathReport AnalyzeCriticalPath(const Profile& profile, const CriticalPathOptions& options = {});

}  // namespace kraken
