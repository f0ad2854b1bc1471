// NvmlReader: nvmlInit and the node's GPUs, memory, and the order of the calls in a pass
// (the facts: nvml_reader_facts.cc; one GPU's pass: nvml_reader_device.cc).
#include "collectors/nvml/nvml_reader.h"

#include <cstring>
#include <string>

#include "collectors/nvml/nvml_reader_internal.h"
#include "collectors/nvml/nvml_return_codes.h"

namespace kraken::nvml {
namespace {

using reader_detail::Ask;

// XID events taken per pass at most, so a flood cannot stall the sampler.
constexpr int kMaxEventsPerPass = 64;

Status InitError(nvmlReturn_t rc, const std::string& diagnostic) {
  std::string message = "nvmlInit failed: " + std::string(ReturnCodeDescription(rc)) + " (" +
                        std::string(ReturnCodeName(rc)) + ")";
  if (!diagnostic.empty()) message += ": " + diagnostic;
  if (rc == NVML_ERROR_DRIVER_NOT_LOADED || rc == NVML_ERROR_LIBRARY_NOT_FOUND) return NotFound(message);
  if (!diagnostic.empty()) return InvalidInput(message);
  return Status(StatusCode::kIoError, message);
}

}  // namespace

NvmlReader::~NvmlReader() {
  if (!initialized_) return;
  for (Gpu& gpu : gpus_) {
    FreeGpm(gpu.gpm);
    for (GpuInstance& gi : gpu.instances) FreeGpm(gi.gpm);
  }
  if (events_ != nullptr) api_.EventSetFree(events_);
  api_.Shutdown();
}

void NvmlReader::FreeGpm(GpmState& state) {
  for (nvmlGpmSample_t& sample : state.samples) {
    if (sample != nullptr) api_.GpmSampleFree(sample);
    sample = nullptr;
  }
}

Status NvmlReader::Open() {
  nvmlReturn_t rc = api_.Init();
  if (rc != NVML_SUCCESS) return InitError(rc, api_.InitDiagnostic());
  initialized_ = true;

  char text[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  system_.driver_version.rc = api_.SystemGetDriverVersion(text, sizeof(text));
  if (system_.driver_version.ok()) system_.driver_version.value = std::string(text, strnlen(text, sizeof(text)));
  std::memset(text, 0, sizeof(text));
  system_.nvml_version.rc = api_.SystemGetNvmlVersion(text, sizeof(text));
  if (system_.nvml_version.ok()) system_.nvml_version.value = std::string(text, strnlen(text, sizeof(text)));
  system_.cuda_driver_version = Ask<int32_t>([&](int32_t* v) { return api_.SystemGetCudaDriverVersion(v); });

  unsigned int count = 0;
  rc = api_.DeviceGetCount(&count);
  if (rc != NVML_SUCCESS)
    return Status(StatusCode::kIoError, "nvmlDeviceGetCount failed: " + std::string(ReturnCodeDescription(rc)));
  for (unsigned int i = 0; i < count && i < 1024; ++i) {
    nvmlDevice_t handle = nullptr;
    // A GPU kraken may not talk to (NO_PERMISSION, GPU_IS_LOST) is left out.
    if (api_.DeviceGetHandleByIndex(i, &handle) != NVML_SUCCESS || handle == nullptr) continue;
    Gpu& gpu = gpus_.emplace_back();
    gpu.handle = handle;
    ReadFacts(handle, devices_.emplace_back());
  }
  system_.device_count.Set(static_cast<uint32_t>(devices_.size()));

  for (size_t d = 0; d < devices_.size(); ++d) {
    Gpu& gpu = gpus_[d];
    const DeviceFacts& facts = devices_[d];
    // One entry per GPU instance, read through its first MIG device (memory is shared by
    // the compute instances of a GPU instance, and GPM samples a GPU instance).
    for (const MigFacts& mig : facts.migs) {
      if (!mig.gpu_instance_id.ok()) continue;
      bool known = false;
      for (const GpuInstance& gi : gpu.instances) known = known || gi.id == mig.gpu_instance_id.value;
      if (known) continue;
      nvmlDevice_t handle = nullptr;
      if (api_.DeviceGetMigDeviceHandleByIndex(gpu.handle, mig.index, &handle) != NVML_SUCCESS) continue;
      gpu.instances.push_back(GpuInstance{mig.gpu_instance_id.value, handle, {}});
    }
    if (facts.gpm_supported.ok() && facts.gpm_supported.value == 1) {
      auto alloc = [&](GpmState& state) {
        for (nvmlGpmSample_t& sample : state.samples)
          if (api_.GpmSampleAlloc(&sample) != NVML_SUCCESS) sample = nullptr;
      };
      alloc(gpu.gpm);
      for (GpuInstance& gi : gpu.instances) alloc(gi.gpm);
    }
  }
  for (uint32_t a = 0; a < devices_.size(); ++a)
    for (uint32_t b = a + 1; b < devices_.size(); ++b) {
      TopologyLink& link = topology_.emplace_back();
      link.a = a;
      link.b = b;
      link.common_ancestor = Ask<int32_t>(
          [&](int32_t* level) { return api_.DeviceGetTopologyCommonAncestor(gpus_[a].handle, gpus_[b].handle, level); });
    }
  // XID critical errors arrive as events; a set that no GPU accepts is dropped.
  if (api_.EventSetCreate(&events_) == NVML_SUCCESS) {
    bool any = false;
    for (const Gpu& gpu : gpus_)
      any = api_.DeviceRegisterEvents(gpu.handle, nvmlEventTypeXidCriticalError, events_) == NVML_SUCCESS || any;
    if (!any) {
      api_.EventSetFree(events_);
      events_ = nullptr;
    }
  } else {
    events_ = nullptr;
  }
  return Status::Ok();
}

Answer<MemoryInfo> NvmlReader::Memory(nvmlDevice_t handle, bool& v1) {
  Answer<MemoryInfo> answer;
  if (!v1) {
    nvmlMemory_v2_t m{};
    m.version = nvmlMemory_v2;
    answer.rc = api_.DeviceGetMemoryInfoV2(handle, &m);
    if (answer.ok()) {
      answer.value = MemoryInfo{m.total, m.reserved, m.free, m.used};
      return answer;
    }
    // An older driver: the symbol is missing or it does not know the struct version.
    if (answer.rc != NVML_ERROR_FUNCTION_NOT_FOUND && answer.rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) return answer;
    v1 = true;
  }
  nvmlMemory_t m{};
  answer.rc = api_.DeviceGetMemoryInfo(handle, &m);
  if (answer.ok()) answer.value = MemoryInfo{m.total, 0, m.free, m.used};
  return answer;
}

Answer<MemoryInfo> NvmlReader::ReadMemory(size_t device, int64_t gpu_instance) {
  if (device >= gpus_.size()) return {NVML_ERROR_INVALID_ARGUMENT, {}};
  Gpu& gpu = gpus_[device];
  if (gpu_instance < 0) return Memory(gpu.handle, gpu.memory_v1);
  for (const GpuInstance& gi : gpu.instances)
    if (gi.id == gpu_instance) return Memory(gi.handle, gpu.memory_v1);
  return {NVML_ERROR_NOT_FOUND, {}};
}

void NvmlReader::ReadFrame(Frame& frame, std::span<const uint8_t> read, std::span<const uint8_t> slow) {
  frame.devices.resize(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d) {
    if (read.empty() || (d < read.size() && read[d] != 0)) {
      bool slow_due = slow.empty() || (d < slow.size() && slow[d] != 0);
      ReadDevice(gpus_[d], devices_[d], slow_due, frame.devices[d]);
    } else {
      frame.devices[d].xids.clear();
    }
  }
  // The costly calls come after every GPU's cheap ones, so that the cheap values of a pass
  // are read close together, and only when the slow calls are due. Between slow passes
  // energy, PCIe and the health fields keep their last answers; process utilization has
  // none (its samples wait in the driver until the next read, see ReadProcessUtilization).
  for (size_t d = 0; d < devices_.size(); ++d) {
    if (!read.empty() && (d >= read.size() || read[d] == 0)) continue;
    DeviceFrame& f = frame.devices[d];
    f.process_utilization_read = f.slow_read;
    if (f.slow_read) {
      ReadProcessUtilization(gpus_[d], f);
      ReadSlow(gpus_[d], f);
    } else {
      f.process_utilization.rc = NVML_ERROR_NOT_FOUND;
      f.process_utilization.value.clear();
    }
  }
  ReadXids(frame);
}

void NvmlReader::ReadXids(Frame& frame) {
  if (events_ == nullptr) return;
  for (int n = 0; n < kMaxEventsPerPass; ++n) {
    nvmlEventData_t data{};
    if (api_.EventSetWait(events_, &data, 0) != NVML_SUCCESS) return;  // TIMEOUT: none left
    if (data.eventType != nvmlEventTypeXidCriticalError) continue;
    for (size_t d = 0; d < gpus_.size(); ++d)
      if (gpus_[d].handle == data.device) frame.devices[d].xids.push_back(data.eventData);
  }
}

}  // namespace kraken::nvml
