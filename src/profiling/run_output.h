// The end-of-run report of `kraken profile`, as text lines and as JSON.
#pragma once

#include <string>
#include <vector>

#include "model/device.h"
#include "profiling/kernel_capture.h"
#include "profiling/run_summary.h"
#include "profiling/sampling_loop.h"

namespace kraken::profiling {

struct RunReport {
  std::vector<std::string> command;  // empty with --pid
  int64_t attached_pid = 0;          // --pid
  std::optional<int> exit_code;      // the command's; absent when attached
  StopReason stop_reason = StopReason::kTargetEnded;
  std::vector<int64_t> tree_pids;    // every pid that was in the tree
  std::vector<DeviceInfo> devices;
  RunSummary summary;
  // --kernels: what the CUPTI tracer recorded (absent without --kernels).
  std::optional<KernelCaptureSummary> kernels;
  // Where the profile went: "profile 12 in /x/kraken.db", "/x/run.json", or "" (--no-store).
  std::string stored_db;
  int64_t stored_id = 0;
  std::string stored_file;
};

std::string RenderRunText(const RunReport& report);
std::string RenderRunJson(const RunReport& report);

}  // namespace kraken::profiling
