// NvmlReader::ReadFacts: what a GPU is (name, PCI, attributes, NVLinks, MIG devices),
// read once when the reader opens.
#include <cstdio>
#include <cstring>
#include <string>

#include "collectors/nvml/nvml_reader.h"
#include "collectors/nvml/nvml_reader_internal.h"

namespace kraken::nvml {
namespace {

using reader_detail::Ask;

// CPUs the affinity mask can name: 64 words of 64 bits.
constexpr unsigned int kAffinityWords = 64;

Answer<std::string> AskText(NvmlApi& api, nvmlReturn_t (NvmlApi::*fn)(nvmlDevice_t, char*, unsigned int),
                            nvmlDevice_t handle) {
  char buffer[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  Answer<std::string> answer;
  answer.rc = (api.*fn)(handle, buffer, sizeof(buffer));
  buffer[sizeof(buffer) - 1] = '\0';
  if (answer.ok()) answer.value = buffer;
  return answer;
}

Answer<Attributes> AskAttributes(NvmlApi& api, nvmlDevice_t handle) {
  nvmlDeviceAttributes_t raw{};
  Answer<Attributes> answer;
  answer.rc = api.DeviceGetAttributes(handle, &raw);
  if (answer.ok())
    answer.value = Attributes{raw.multiprocessorCount, raw.sharedCopyEngineCount, raw.sharedDecoderCount,
                              raw.sharedEncoderCount,  raw.sharedJpegCount,       raw.sharedOfaCount,
                              raw.gpuInstanceSliceCount, raw.computeInstanceSliceCount, raw.memorySizeMB};
  return answer;
}

std::string BusId(const nvmlPciInfo_t& pci) {
  char id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE + 1] = {};
  std::memcpy(id, pci.busId, sizeof(pci.busId));
  if (id[0] != '\0') return id;
  // Only the v1 call answered: rebuild the full form from the numbers.
  char full[40];
  std::snprintf(full, sizeof(full), "%08X:%02X:%02X.0", pci.domain, pci.bus & 0xFF, pci.device & 0xFF);
  return full;
}

}  // namespace

void NvmlReader::ReadFacts(nvmlDevice_t h, DeviceFacts& f) {
  NvmlApi& api = api_;
  f.name = AskText(api, &NvmlApi::DeviceGetName, h);
  f.uuid = AskText(api, &NvmlApi::DeviceGetUuid, h);
  nvmlPciInfo_t pci{};
  f.pci.rc = api.DeviceGetPciInfo(h, &pci);
  if (f.pci.ok()) f.pci.value = PciInfo{BusId(pci), pci.domain, pci.bus, pci.device, pci.pciDeviceId, pci.pciSubSystemId};
  f.minor_number = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMinorNumber(h, v); });
  f.architecture = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetArchitecture(h, v); });
  int major = 0, minor = 0;
  f.compute_capability.rc = api.DeviceGetCudaComputeCapability(h, &major, &minor);
  if (f.compute_capability.ok()) f.compute_capability.value = {major, minor};
  f.num_gpu_cores = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetNumGpuCores(h, v); });
  f.attributes = AskAttributes(api, h);
  f.max_sm_clock_mhz = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxClockInfo(h, NVML_CLOCK_SM, v); });
  f.max_mem_clock_mhz = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxClockInfo(h, NVML_CLOCK_MEM, v); });
  f.power_limit_mw = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetEnforcedPowerLimit(h, v); });
  f.pcie_max_generation = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxPcieLinkGeneration(h, v); });
  f.pcie_max_width = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxPcieLinkWidth(h, v); });
  unsigned int current = 0, pending = 0;
  f.mig_mode.rc = api.DeviceGetMigMode(h, &current, &pending);
  if (f.mig_mode.ok()) f.mig_mode.value = {current, pending};
  nvmlGpmSupport_t support{NVML_GPM_SUPPORT_VERSION, 0};
  f.gpm_supported.rc = api.GpmQueryDeviceSupport(h, &support);
  if (f.gpm_supported.ok()) f.gpm_supported.value = support.isSupportedDevice;
  f.numa_node = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetNumaNodeId(h, v); });

  unsigned long mask[kAffinityWords] = {};
  f.cpu_affinity.rc = api.DeviceGetCpuAffinity(h, kAffinityWords, mask);
  if (f.cpu_affinity.ok()) {
    constexpr uint32_t kBits = sizeof(unsigned long) * 8;
    for (uint32_t cpu = 0; cpu < kAffinityWords * kBits; ++cpu)
      if ((mask[cpu / kBits] >> (cpu % kBits)) & 1UL) f.cpu_affinity.value.push_back(cpu);
  }
  // Links are numbered from 0; the first that does not answer ends the list.
  for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    int active = 0;
    nvmlReturn_t rc = api.DeviceGetNvLinkState(h, link, &active);
    if (rc != NVML_SUCCESS) break;
    NvLinkFacts& facts = f.nvlinks.emplace_back();
    facts.state.Set(static_cast<uint32_t>(active));
    if (active != NVML_FEATURE_ENABLED) continue;
    nvmlPciInfo_t remote{};
    facts.remote.rc = api.DeviceGetNvLinkRemotePciInfo(h, link, &remote);
    if (facts.remote.ok()) facts.remote.value = BusId(remote);
  }

  if (!f.mig_mode.ok() || f.mig_mode.value.first != NVML_DEVICE_MIG_ENABLE) return;
  f.max_mig_devices = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetMaxMigDeviceCount(h, v); });
  if (!f.max_mig_devices.ok()) return;
  for (unsigned int i = 0; i < f.max_mig_devices.value && i < 64; ++i) {
    nvmlDevice_t mig_handle = nullptr;
    if (api.DeviceGetMigDeviceHandleByIndex(h, i, &mig_handle) != NVML_SUCCESS) continue;  // an empty slot
    MigFacts& m = f.migs.emplace_back();
    m.index = i;
    m.gpu_instance_id = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetGpuInstanceId(mig_handle, v); });
    m.compute_instance_id = Ask<uint32_t>([&](uint32_t* v) { return api.DeviceGetComputeInstanceId(mig_handle, v); });
    m.name = AskText(api, &NvmlApi::DeviceGetName, mig_handle);
    m.uuid = AskText(api, &NvmlApi::DeviceGetUuid, mig_handle);
    m.attributes = AskAttributes(api, mig_handle);
  }
}

}  // namespace kraken::nvml
