// The state behind libkraken_nvml_replay.so: one capture, the handles the replay gave out,
// and the pass (sampling round) it is in. See docs/nvml-capture-format.md for the rules.
//
// Frames advance on each call of nvmlDeviceGetUtilizationRates on device 0 (the collector
// calls it first in every pass); the first such call shows frame 0, and after the last
// frame the replay wraps around to frame 0 with timestamps that keep increasing, so an agent
// can run indefinitely on a short capture. The replay's clock starts at the wall-clock time
// of nvmlInit (frame 0's time), so replayed timestamps look live.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "collectors/nvml/capture.h"
#include "collectors/nvml/replay/pid_map.h"

namespace kraken::nvml::replay {

// What an nvmlDevice_t handed out by the replay points at.
struct DeviceHandle {
  uint32_t device = 0;  // index into Capture::devices
  int32_t mig = -1;     // index into DeviceFacts::migs; -1 = the GPU itself
};

struct GpmSampleSlot {
  bool taken = false;
  uint32_t device = 0;
  int64_t gpu_instance = -1;  // -1 = whole GPU
  int64_t pass = -1;
};

struct EventSetSlot {
  std::vector<bool> registered;  // by device
  std::deque<std::pair<uint32_t, uint64_t>> pending;  // (device, XID)
};

class ReplayState {
 public:
  static ReplayState& Get();

  std::mutex& mutex() { return mutex_; }

  // nvmlInit: loads the capture named by KRAKEN_NVML_REPLAY on the first call.
  nvmlReturn_t Init();
  nvmlReturn_t Shutdown();
  bool initialized() const { return init_count_ > 0; }
  const std::string& last_error() const { return last_error_; }

  const Capture& capture() const { return capture_; }
  bool VersionMismatch(const char* function) const { return version_mismatch_.count(function) > 0; }

  // The handle for a device or MIG device, and back; nullptr when it is not one of ours.
  nvmlDevice_t GpuHandle(uint32_t device);
  nvmlDevice_t MigHandle(uint32_t device, uint32_t mig);
  const DeviceHandle* Resolve(nvmlDevice_t handle) const;

  // Called by nvmlDeviceGetUtilizationRates on device 0.
  void AdvancePass();
  // The frame of the current pass (frame 0 before the first pass) or of `pass`.
  const Frame& CurrentFrame() const { return FrameOfPass(pass_); }
  const Frame& FrameOfPass(int64_t pass) const;
  int64_t pass() const { return pass_; }
  // Unix µs of a capture time (µs since its start) in the current pass's round.
  uint64_t AbsoluteTime(uint64_t capture_time_us) const { return AbsoluteTime(pass_, capture_time_us); }
  uint64_t AbsoluteTime(int64_t pass, uint64_t capture_time_us) const;

  // The pid to report for a captured one (KRAKEN_NVML_REPLAY_PID_MAP, test-only).
  uint32_t MapPid(uint32_t captured) const {
    return pid_map_.empty() ? captured : MapCapturedPid(pid_map_, captured);
  }

  GpmSampleSlot* NewGpmSample();
  GpmSampleSlot* FindGpmSample(nvmlGpmSample_t sample);
  bool FreeGpmSample(nvmlGpmSample_t sample);
  EventSetSlot* NewEventSet();
  EventSetSlot* FindEventSet(nvmlEventSet_t set);
  bool FreeEventSet(nvmlEventSet_t set);

 private:
  ReplayState() = default;
  nvmlReturn_t Load();
  void Reset();

  std::mutex mutex_;
  int init_count_ = 0;
  std::string last_error_;
  Capture capture_;
  std::set<std::string, std::less<>> version_mismatch_;
  std::vector<PidMapEntry> pid_map_;
  std::vector<std::unique_ptr<DeviceHandle>> handles_;  // GPUs first, then MIG devices
  std::vector<std::unique_ptr<GpmSampleSlot>> gpm_samples_;
  std::vector<std::unique_ptr<EventSetSlot>> event_sets_;
  int64_t pass_ = -1;
  uint64_t clock_base_us_ = 0;  // Unix µs of capture time 0
};

}  // namespace kraken::nvml::replay
