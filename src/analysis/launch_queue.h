// CUDA launch queue length per stream over time, as Holistic Trace Analysis defines it
// (get_queue_length_time_series): the number of operations enqueued on a stream and not
// yet started. It rises by one when a runtime call that launches GPU work starts
// (cudaLaunchKernel, cudaMemcpyAsync, ...: any runtime call whose correlation id a GPU
// event carries) and falls by one when that GPU event starts. HTA counts only
// cudaLaunchKernel/cudaMemcpyAsync/cudaMemsetAsync by name; kraken counts every call
// linked to GPU work (cuLaunchKernel, hipLaunchKernel, graph launches' first kernel, ...).
// Blocked time (HTA's get_time_spent_blocked_on_full_queue): how long a stream's queue
// stood at or above `max_queue_length` (1024 by default, the depth of CUDA's launch
// queue; a launch into a full queue blocks the CPU thread).
#pragma once

#include <cstdint>
#include <vector>

#include "model/profile.h"

namespace kraken {

struct QueuePoint {
  TimeNs time_ns = 0;
  int64_t length = 0;  // from this time until the next point
};

struct StreamQueue {
  int32_t device = -1;
  int64_t stream = -1;
  int64_t launches = 0;
  int64_t max_length = 0;
  TimeNs max_at_ns = 0;
  double mean_length = 0;         // time-weighted, first launch to last GPU start
  TimeNs blocked_ns = 0;          // at or above max_queue_length
  std::vector<QueuePoint> series;  // every change, or at most `max_points` (bin maxima)
};

struct LaunchQueueOptions {
  int64_t max_queue_length = 1024;
  size_t max_points = 400;  // per stream, for reports; 0 keeps every change
};

struct LaunchQueues {
  std::vector<StreamQueue> streams;  // sorted by (device, stream)
  TimeNs blocked_ns = 0;             // summed over streams
};

LaunchQueues AnalyzeLaunchQueues(const Profile& profile, const LaunchQueueOptions& options = {});

}  // namespace kraken
