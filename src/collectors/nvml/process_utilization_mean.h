// The per-process utilization of one slow read: the driver's samples since the previous
// read, folded into one SM and one memory percentage per pid (NvmlSampler's process values).
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "collectors/nvml/capture.h"

namespace kraken::nvml {

// Orders a read's samples by pid, then time; then by value, so that which of the repeats of
// a (pid, time) is kept does not depend on the order the driver listed them in.
inline bool ByPidThenTime(const ProcessUtilization& a, const ProcessUtilization& b) {
  return std::tie(a.pid, a.time_us, a.sm_pct, a.mem_pct) < std::tie(b.pid, b.time_us, b.sm_pct, b.mem_pct);
}

// A read answers every sample the driver took since the previous read: one per pid about
// every 200 ms on an H100, so about five per pid at the default 1 s slow cadence. Each
// covers one driver period, so their unweighted mean is the pid's utilization over the
// interval; the newest alone would be a 200 ms point standing for the whole second.
// Leaves out samples above 100 % (garbage some drivers return) and repeats of a
// (pid, time). With `newest_only` (a read that answered the driver's whole buffer, which
// holds samples from before kraken started: minutes of them for a long-running process)
// each pid's newest sample alone stands for now. Calls `each(pid, SM %, memory %)` once
// per pid that has a sample left, in pid order. `scratch` keeps its capacity from read to
// read: no allocation in steady state.
template <typename Each>
void ForEachPidsMeanUtilization(const std::vector<ProcessUtilization>& samples, bool newest_only,
                                std::vector<ProcessUtilization>& scratch, Each&& each) {
  scratch.clear();
  for (const ProcessUtilization& s : samples)
    if (s.sm_pct <= 100 && s.mem_pct <= 100) scratch.push_back(s);
  std::sort(scratch.begin(), scratch.end(), ByPidThenTime);
  for (size_t first = 0, end = 0; first < scratch.size(); first = end) {
    while (end < scratch.size() && scratch[end].pid == scratch[first].pid) ++end;
    if (newest_only) {
      each(scratch[first].pid, scratch[end - 1].sm_pct, scratch[end - 1].mem_pct);
      continue;
    }
    double sm_sum = 0, mem_sum = 0;
    int count = 0;
    for (size_t i = first; i < end; ++i) {
      if (i > first && scratch[i].time_us == scratch[i - 1].time_us) continue;  // the same sample again
      sm_sum += scratch[i].sm_pct;
      mem_sum += scratch[i].mem_pct;
      ++count;
    }
    each(scratch[first].pid, sm_sum / count, mem_sum / count);
  }
}

}  // namespace kraken::nvml
