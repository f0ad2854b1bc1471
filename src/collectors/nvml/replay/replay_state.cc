#include "collectors/nvml/replay/replay_state.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/small_file.h"
#include "collectors/nvml/capture_format.h"

namespace kraken::nvml::replay {

ReplayState& ReplayState::Get() {
  // Destroyed when the library is unloaded (dlclose) or at exit: tests load and unload it
  // many times, and each load must start clean.
  static ReplayState state;
  return state;
}

nvmlReturn_t ReplayState::Init() {
  if (init_count_ > 0) {
    ++init_count_;
    return NVML_SUCCESS;
  }
  nvmlReturn_t rc = Load();
  if (rc == NVML_SUCCESS) init_count_ = 1;
  return rc;
}

nvmlReturn_t ReplayState::Shutdown() {
  if (init_count_ == 0) return NVML_ERROR_UNINITIALIZED;
  if (--init_count_ == 0) Reset();
  return NVML_SUCCESS;
}

void ReplayState::Reset() {
  capture_ = Capture();
  version_mismatch_.clear();
  pid_map_.clear();
  handles_.clear();
  gpm_samples_.clear();
  event_sets_.clear();
  pass_ = -1;
}

nvmlReturn_t ReplayState::Load() {
  Reset();
  const char* path = std::getenv("KRAKEN_NVML_REPLAY");
  if (path == nullptr || *path == '\0') {
    last_error_ = "KRAKEN_NVML_REPLAY is not set: it must name the NVML capture to replay";
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  // A capture is a text file of frames; 1 GiB is hours of a large node and bounds an
  // endless stream named by mistake.
  Result<std::string> text = ReadSmallFile(path, 1024 * kMiB, "the NVML capture");
  if (!text.ok()) {
    last_error_ = text.status().message();
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  Result<Capture> parsed = ParseCapture(*text);
  if (!parsed.ok()) {
    last_error_ = std::string(path) + ": " + parsed.status().message();
    return NVML_ERROR_UNKNOWN;
  }
  const char* pid_map = std::getenv("KRAKEN_NVML_REPLAY_PID_MAP");
  if (pid_map != nullptr && !ParsePidMap(pid_map, pid_map_, last_error_)) return NVML_ERROR_UNKNOWN;
  capture_ = std::move(parsed).value();
  for (const std::string& function : capture_.version_mismatch) version_mismatch_.insert(function);
  // Braced: parenthesized aggregate initialization (make_unique<Aggregate>(a, b)) is C++20
  // that clang 14, the fuzz build's compiler, does not implement.
  for (uint32_t d = 0; d < capture_.devices.size(); ++d)
    handles_.push_back(std::make_unique<DeviceHandle>(DeviceHandle{d, -1}));
  for (uint32_t d = 0; d < capture_.devices.size(); ++d)
    for (size_t m = 0; m < capture_.devices[d].migs.size(); ++m)
      handles_.push_back(std::make_unique<DeviceHandle>(DeviceHandle{d, static_cast<int32_t>(m)}));
  clock_base_us_ = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
  last_error_.clear();
  return NVML_SUCCESS;
}

nvmlDevice_t ReplayState::GpuHandle(uint32_t device) {
  if (device >= capture_.devices.size()) return nullptr;
  return reinterpret_cast<nvmlDevice_t>(handles_[device].get());
}

nvmlDevice_t ReplayState::MigHandle(uint32_t device, uint32_t mig) {
  for (const auto& h : handles_)
    if (h->device == device && h->mig == static_cast<int32_t>(mig)) return reinterpret_cast<nvmlDevice_t>(h.get());
  return nullptr;
}

const DeviceHandle* ReplayState::Resolve(nvmlDevice_t handle) const {
  // Compared by address only: a handle that is not ours is never dereferenced.
  for (const auto& h : handles_)
    if (reinterpret_cast<nvmlDevice_t>(h.get()) == handle) return h.get();
  return nullptr;
}

void ReplayState::AdvancePass() {
  ++pass_;
  const Frame& frame = CurrentFrame();
  for (auto& set : event_sets_) {
    set->pending.clear();
    for (uint32_t d = 0; d < frame.devices.size() && d < set->registered.size(); ++d)
      if (set->registered[d])
        for (uint64_t xid : frame.devices[d].xids) set->pending.emplace_back(d, xid);
  }
}

const Frame& ReplayState::FrameOfPass(int64_t pass) const {
  size_t count = capture_.frames.size();  // at least one: the parser insists
  return capture_.frames[pass < 0 ? 0 : static_cast<size_t>(pass) % count];
}

uint64_t ReplayState::AbsoluteTime(int64_t pass, uint64_t capture_time_us) const {
  // One round lasts from frame 0 to one interval after the last frame.
  uint64_t round_us = capture_.frames.back().time_us + std::max<uint64_t>(capture_.interval_us, 1);
  uint64_t round = pass < 0 ? 0 : static_cast<uint64_t>(pass) / capture_.frames.size();
  return clock_base_us_ + round * round_us + capture_time_us;
}

GpmSampleSlot* ReplayState::NewGpmSample() {
  if (gpm_samples_.size() >= 4096) return nullptr;  // a caller leaking samples
  gpm_samples_.push_back(std::make_unique<GpmSampleSlot>());
  return gpm_samples_.back().get();
}

GpmSampleSlot* ReplayState::FindGpmSample(nvmlGpmSample_t sample) {
  for (const auto& s : gpm_samples_)
    if (reinterpret_cast<nvmlGpmSample_t>(s.get()) == sample) return s.get();
  return nullptr;
}

bool ReplayState::FreeGpmSample(nvmlGpmSample_t sample) {
  auto it = std::find_if(gpm_samples_.begin(), gpm_samples_.end(),
                         [&](const auto& s) { return reinterpret_cast<nvmlGpmSample_t>(s.get()) == sample; });
  if (it == gpm_samples_.end()) return false;
  gpm_samples_.erase(it);
  return true;
}

EventSetSlot* ReplayState::NewEventSet() {
  if (event_sets_.size() >= 256) return nullptr;
  event_sets_.push_back(std::make_unique<EventSetSlot>());
  event_sets_.back()->registered.assign(capture_.devices.size(), false);
  return event_sets_.back().get();
}

EventSetSlot* ReplayState::FindEventSet(nvmlEventSet_t set) {
  for (const auto& s : event_sets_)
    if (reinterpret_cast<nvmlEventSet_t>(s.get()) == set) return s.get();
  return nullptr;
}

bool ReplayState::FreeEventSet(nvmlEventSet_t set) {
  auto it = std::find_if(event_sets_.begin(), event_sets_.end(),
                         [&](const auto& s) { return reinterpret_cast<nvmlEventSet_t>(s.get()) == set; });
  if (it == event_sets_.end()) return false;
  event_sets_.erase(it);
  return true;
}

}  // namespace kraken::nvml::replay
