// NvmlSampler's enumeration: the DeviceInfo of each GPU from the reader's facts, and the
// naming helpers declared in nvml_sampler.h. Sampling passes: nvml_sampler.cc.
#include <string>

#include "collectors/nvml/nvml_sampler.h"

namespace kraken::nvml {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string CudaVersion(int32_t v) {  // 13010 -> "13.1"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

std::string_view ArchitectureName(uint32_t architecture) {
  switch (architecture) {
    case NVML_DEVICE_ARCH_KEPLER: return "Kepler";
    case NVML_DEVICE_ARCH_MAXWELL: return "Maxwell";
    case NVML_DEVICE_ARCH_PASCAL: return "Pascal";
    case NVML_DEVICE_ARCH_VOLTA: return "Volta";
    case NVML_DEVICE_ARCH_TURING: return "Turing";
    case NVML_DEVICE_ARCH_AMPERE: return "Ampere";
    case NVML_DEVICE_ARCH_ADA: return "Ada Lovelace";
    case NVML_DEVICE_ARCH_HOPPER: return "Hopper";
    case NVML_DEVICE_ARCH_BLACKWELL: return "Blackwell";
    case NVML_DEVICE_ARCH_RUBIN: return "Rubin";
    default: return "";
  }
}

std::string MigProfileFromName(std::string_view name) {
  size_t at = name.rfind(" MIG ");
  return at == std::string_view::npos ? std::string() : std::string(name.substr(at + 5));
}

std::string GpuInstanceProfile(std::string_view profile) {
  // "1c.3g.71gb": a compute instance of 1 slice in a 3-slice GPU instance.
  size_t dot = profile.find('.');
  if (dot != std::string_view::npos && dot > 0 && profile[dot - 1] == 'c' && profile.find('g') > dot)
    return std::string(profile.substr(dot + 1));
  return std::string(profile);
}

bool NvmlSampler::gpm_supported(size_t device) const {
  if (device >= reader_.devices().size()) return false;
  const auto& gpm = reader_.devices()[device].gpm_supported;
  return gpm.ok() && gpm.value == 1;
}

Status NvmlSampler::Open() {
  KRAKEN_RETURN_IF_ERROR(reader_.Open());
  const SystemFacts& system = reader_.system();
  for (size_t d = 0; d < reader_.devices().size(); ++d) {
    const DeviceFacts& f = reader_.devices()[d];
    DeviceInfo& info = devices_.emplace_back();
    info.index = static_cast<int32_t>(d);
    info.vendor = Vendor::kNvidia;
    if (f.name.ok()) info.name = f.name.value;
    if (f.uuid.ok()) info.uuid = f.uuid.value;
    if (f.pci.ok()) info.pci_bus_id = f.pci.value.bus_id;
    if (f.architecture.ok()) info.architecture = ArchitectureName(f.architecture.value);
    if (f.attributes.ok()) info.sm_count = static_cast<int32_t>(f.attributes.value.sm_count);
    if (f.compute_capability.ok()) {
      info.compute_major = f.compute_capability.value.first;
      info.compute_minor = f.compute_capability.value.second;
    }
    Answer<MemoryInfo> memory = reader_.ReadMemory(d);
    if (memory.ok()) info.memory_bytes = static_cast<int64_t>(memory.value.total);
    if (f.max_sm_clock_mhz.ok()) info.max_sm_clock_mhz = f.max_sm_clock_mhz.value;
    if (f.max_mem_clock_mhz.ok()) info.max_mem_clock_mhz = f.max_mem_clock_mhz.value;
    if (f.power_limit_mw.ok()) info.power_limit_w = f.power_limit_mw.value / 1000.0;
    if (f.pcie_max_generation.ok()) info.pcie_generation = static_cast<int>(f.pcie_max_generation.value);
    if (f.pcie_max_width.ok()) info.pcie_link_width = static_cast<int>(f.pcie_max_width.value);
    if (system.driver_version.ok()) info.driver_version = system.driver_version.value;
    if (system.cuda_driver_version.ok()) info.cuda_version = CudaVersion(system.cuda_driver_version.value);
    if (f.minor_number.ok()) info.minor_number = static_cast<int32_t>(f.minor_number.value);
    if (f.mig_mode.ok()) {
      info.mig_enabled = f.mig_mode.value.first == NVML_DEVICE_MIG_ENABLE;
      info.mig_enabled_pending = f.mig_mode.value.second == NVML_DEVICE_MIG_ENABLE;
    }
    for (const MigFacts& m : f.migs) {
      MigInstance& mig = info.mig_instances.emplace_back();
      if (m.gpu_instance_id.ok()) mig.gpu_instance_id = static_cast<int32_t>(m.gpu_instance_id.value);
      if (m.compute_instance_id.ok()) mig.compute_instance_id = static_cast<int32_t>(m.compute_instance_id.value);
      if (m.name.ok()) mig.profile = MigProfileFromName(m.name.value);
      if (m.attributes.ok()) mig.sm_count = static_cast<int32_t>(m.attributes.value.sm_count);
      // What the GPU instance's memory answer says; the attributes' size otherwise.
      Answer<MemoryInfo> gi_memory = reader_.ReadMemory(d, mig.gpu_instance_id);
      if (gi_memory.ok()) {
        mig.memory_bytes = static_cast<int64_t>(gi_memory.value.total);
      } else if (m.attributes.ok()) {
        mig.memory_bytes = static_cast<int64_t>(m.attributes.value.memory_mib * kMiB);
      }
    }
  }
  topology_ = BuildTopology(reader_.devices(), reader_.topology());
  rates_.assign(devices_.size(), Rates());
  last_xid_.assign(devices_.size(), -1);
  next_slow_us_.assign(devices_.size(), -1);
  slow_due_.assign(devices_.size(), 0);
  process_samples_seen_.assign(devices_.size(), 0);
  return Status::Ok();
}

}  // namespace kraken::nvml
