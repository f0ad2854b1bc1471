#include "collectors/nvml/smi_capture_converter.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "base/byte_stream.h"
#include "base/sha256.h"
#include "base/text.h"
#include "collectors/nvml/capture_format.h"
#include "importers/nvidia_smi/capture_sections.h"
#include "importers/nvidia_smi/smi_q_report.h"
#include "importers/nvidia_smi/smi_values.h"
#include "importers/registry.h"

namespace kraken::nvml {
namespace {

using nvidia_smi::ReportNode;
using nvidia_smi::Section;
constexpr double kMiB = 1024.0 * 1024.0;

struct Phase {
  std::string name;
  ReportNode report;             // the phase's -q report
  std::vector<const ReportNode*> gpus;  // its "GPU <bus id>" groups
  size_t rows = 0;               // dmon rows = frames of this phase
};

std::optional<double> Number(std::string_view text) {
  nvidia_smi::SmiValue v = nvidia_smi::ParseSmiValue(text);
  if (v.kind != nvidia_smi::ValueKind::kNumber) return std::nullopt;
  return v.number;
}

std::optional<uint32_t> Hex(std::string_view text) {
  auto v = ParseHex(Trim(text));
  if (!v || *v > 0xFFFFFFFFull) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

uint32_t ArchitectureFromName(std::string_view name) {
  static const std::pair<const char*, uint32_t> kNames[] = {
      {"Kepler", NVML_DEVICE_ARCH_KEPLER}, {"Maxwell", NVML_DEVICE_ARCH_MAXWELL}, {"Pascal", NVML_DEVICE_ARCH_PASCAL},
      {"Volta", NVML_DEVICE_ARCH_VOLTA},   {"Turing", NVML_DEVICE_ARCH_TURING},   {"Ampere", NVML_DEVICE_ARCH_AMPERE},
      {"Ada Lovelace", NVML_DEVICE_ARCH_ADA}, {"Hopper", NVML_DEVICE_ARCH_HOPPER},
      {"Blackwell", NVML_DEVICE_ARCH_BLACKWELL}};
  for (const auto& [text, arch] : kNames)
    if (name == text) return arch;
  return 0;
}

// The slices of a MIG profile: "1c.3g.71gb" -> (1, 3); "3g.40gb" -> (3, 3).
std::pair<uint32_t, uint32_t> ProfileSlices(std::string_view profile) {
  uint32_t ci = 0, gi = 0;
  size_t g = profile.find("g.");
  if (g == std::string_view::npos) return {0, 0};
  size_t start = profile.rfind('.', g);
  start = start == std::string_view::npos ? 0 : start + 1;
  gi = static_cast<uint32_t>(ParseInt64(profile.substr(start, g - start)).value_or(0));
  size_t c = profile.find("c.");
  ci = c != std::string_view::npos && c < g ? static_cast<uint32_t>(ParseInt64(profile.substr(0, c)).value_or(0)) : gi;
  return {ci, gi};
}

MemoryInfo MemoryFrom(const ReportNode& group) {
  auto mib = [&](std::string_view key) {
    return static_cast<uint64_t>(std::llround(Number(group.ValueAt({key})).value_or(0) * kMiB));
  };
  return MemoryInfo{mib("Total"), mib("Reserved"), mib("Free"), mib("Used")};
}

std::optional<uint32_t> InstanceId(std::string_view text) {
  auto v = ParseInt64(Trim(text));
  if (!v || *v < 0) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

// Series of one (metric, source, phase, pid) for GPU `gpu`.
class SeriesIndex {
 public:
  explicit SeriesIndex(const Profile& profile) {
    for (const Series& s : profile.series) {
      auto phase = s.entity.labels.find("phase");
      if (phase == s.entity.labels.end()) continue;
      index_[Key(s.metric, s.source_name, phase->second, s.entity.gpu_index, s.entity.pid)] = &s;
    }
  }
  const Series* Find(Metric metric, std::string_view source, const std::string& phase, int32_t gpu,
                     int64_t pid = -1) const {
    auto it = index_.find(Key(metric, source, phase, gpu, pid));
    return it == index_.end() ? nullptr : it->second;
  }
  std::optional<double> At(Metric metric, std::string_view source, const std::string& phase, int32_t gpu, size_t row,
                           int64_t pid = -1) const {
    const Series* s = Find(metric, source, phase, gpu, pid);
    if (s == nullptr || row >= s->samples.size()) return std::nullopt;
    return s->samples[row].value;
  }
  std::optional<double> First(Metric metric, std::string_view source, const std::string& phase, int32_t gpu) const {
    return At(metric, source, phase, gpu, 0);
  }
  // The pids with a series of (metric, source) in the phase.
  std::vector<int64_t> Pids(Metric metric, std::string_view source, const std::string& phase, int32_t gpu) const {
    std::vector<int64_t> pids;
    std::string prefix = Key(metric, source, phase, gpu, 0);
    prefix.resize(prefix.rfind('|') + 1);
    for (auto it = index_.lower_bound(prefix); it != index_.end() && it->first.starts_with(prefix); ++it)
      if (it->second->entity.pid >= 0) pids.push_back(it->second->entity.pid);
    return pids;
  }

 private:
  static std::string Key(Metric metric, std::string_view source, const std::string& phase, int32_t gpu, int64_t pid) {
    return std::to_string(static_cast<int>(metric)) + "|" + std::string(source) + "|" + phase + "|" +
           std::to_string(gpu) + "|" + std::to_string(pid);
  }
  std::map<std::string, const Series*> index_;
};

// topo -m: "GPU0\t X \t0-19\t0\t\tN/A" -> CPU list and NUMA node per GPU row.
void ReadTopo(std::string_view body, size_t gpus, std::vector<DeviceFacts>& devices) {
  for (std::string_view line : nvidia_smi::Lines(body)) {
    auto tokens = SplitWhitespace(line);
    if (tokens.empty() || !StartsWith(tokens[0], "GPU")) continue;
    auto index = ParseInt64(tokens[0].substr(3));
    if (!index || *index < 0 || static_cast<size_t>(*index) >= devices.size() || tokens.size() < gpus + 3) continue;
    DeviceFacts& d = devices[static_cast<size_t>(*index)];
    std::vector<uint32_t> cpus;
    if (ParseCpuList(tokens[gpus + 1], cpus)) d.cpu_affinity.Set(cpus);
    if (auto numa = ParseInt64(tokens[gpus + 2]); numa && *numa >= 0) d.numa_node.Set(static_cast<uint32_t>(*numa));
  }
}

// nvlink -s: "GPU 0: ..." then "\t Link 3: 26.562 GB/s" per active link.
void ReadNvlinks(std::string_view body, std::vector<DeviceFacts>& devices) {
  int gpu = -1;
  for (std::string_view line : nvidia_smi::Lines(body)) {
    std::string_view t = Trim(line);
    if (StartsWith(t, "GPU ")) {
      gpu = static_cast<int>(ParseInt64(t.substr(4, t.find(':') - 4)).value_or(-1));
    } else if (StartsWith(t, "Link ") && gpu >= 0 && static_cast<size_t>(gpu) < devices.size()) {
      auto link = ParseInt64(t.substr(5, t.find(':') - 5));
      if (!link || *link < 0 || *link >= static_cast<int64_t>(NVML_NVLINK_MAX_LINKS)) continue;
      auto& links = devices[static_cast<size_t>(gpu)].nvlinks;
      if (links.size() <= static_cast<size_t>(*link)) links.resize(static_cast<size_t>(*link) + 1);
      links[static_cast<size_t>(*link)].state.Set(NVML_FEATURE_ENABLED);
    }
  }
}

// -L: "  MIG 3g.40gb     Device  0: (UUID: MIG-...)" under "GPU 0: ...".
std::map<std::pair<int, int>, std::string> ReadMigUuids(std::string_view body) {
  std::map<std::pair<int, int>, std::string> uuids;
  int gpu = -1;
  for (std::string_view line : nvidia_smi::Lines(body)) {
    std::string_view t = Trim(line);
    if (StartsWith(t, "GPU ")) gpu = static_cast<int>(ParseInt64(t.substr(4, t.find(':') - 4)).value_or(-1));
    size_t device = t.find("Device");
    size_t uuid = t.find("UUID: ");
    if (!StartsWith(t, "MIG ") || device == std::string_view::npos || uuid == std::string_view::npos) continue;
    auto index = ParseInt64(Trim(t.substr(device + 6, t.find(':', device) - device - 6)));
    size_t end = t.find(')', uuid);
    if (index && gpu >= 0) uuids[{gpu, static_cast<int>(*index)}] = std::string(t.substr(uuid + 6, end - uuid - 6));
  }
  return uuids;
}

// The MIG devices of a -q GPU group, in report order.
std::vector<const ReportNode*> MigDevices(const ReportNode& gpu) {
  std::vector<const ReportNode*> migs;
  for (const ReportNode& child : gpu.children)
    if (child.key == "MIG Device") migs.push_back(&child);
  return migs;
}

// -q "Processes": siblings "GPU instance ID", "Compute instance ID", "Process ID" (with
// Type, Name, Used GPU Memory under it) repeat per process.
std::vector<ProcessAnswer> ReadProcesses(const ReportNode& gpu) {
  std::vector<ProcessAnswer> processes;
  const ReportNode* group = gpu.Find({"Processes"});
  if (group == nullptr) return processes;
  uint32_t gi = NVML_NO_INSTANCE_ID, ci = NVML_NO_INSTANCE_ID;
  for (const ReportNode& node : group->children) {
    if (node.key == "GPU instance ID") gi = InstanceId(node.value).value_or(NVML_NO_INSTANCE_ID);
    if (node.key == "Compute instance ID") ci = InstanceId(node.value).value_or(NVML_NO_INSTANCE_ID);
    if (node.key != "Process ID") continue;
    auto pid = InstanceId(node.value);
    auto used = Number(node.ValueAt({"Used GPU Memory"}));
    if (pid) processes.push_back(ProcessAnswer{*pid, static_cast<uint64_t>(std::llround(used.value_or(0) * kMiB)), gi, ci});
    gi = ci = NVML_NO_INSTANCE_ID;
  }
  return processes;
}

std::string Replace(std::string text, int copy) {
  // "GPU-00000000-0000-0000-0000-000000000000" -> the last field ends in the copy index.
  if (copy == 0 || text.size() < 12) return text;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%012x", copy);
  return text.substr(0, text.size() - 12) + suffix;
}

// The nvidia-smi capture's sections: the capability commands' output and, per phase, its
// -q report (the phases' frame counts come from the importer's dmon series).
struct SmiSections {
  std::string list_body, topo_body, nvlink_body;  // -L, topo -m, nvlink -s
  std::vector<Phase> phases;
};

SmiSections SplitCapture(std::string_view text) {
  SmiSections sections;
  std::vector<Phase>& phases = sections.phases;
  for (const Section& section : nvidia_smi::SplitSections(text)) {
    if (section.command == "nvidia-smi -L") sections.list_body = section.body;
    if (section.command == "nvidia-smi topo -m") sections.topo_body = section.body;
    if (section.command == "nvidia-smi nvlink -s") sections.nvlink_body = section.body;
    if (section.phase.empty() || section.phase == "capabilities") continue;
    if (phases.empty() || phases.back().name != section.phase) phases.emplace_back().name = section.phase;
    Phase& phase = phases.back();
    if (section.command == "nvidia-smi -q") {
      phase.report = nvidia_smi::ParseReportTree(section.body);
      for (const ReportNode& child : phase.report.children)
        if (StartsWith(child.key, "GPU ")) phase.gpus.push_back(&child);
    }
  }
  return sections;
}

// A phase has as many frames as its longest dmon column; a phase without dmon rows or
// without a -q group for every GPU cannot make frames and is dropped.
void CountPhaseRows(const SeriesIndex& series, size_t gpu_count, std::vector<Phase>& phases) {
  const std::pair<Metric, const char*> kDmonColumns[] = {
      {Metric::kPowerW, "pwr"}, {Metric::kGpuTempC, "gtemp"}, {Metric::kSmClockMhz, "pclk"}};
  for (Phase& phase : phases)
    for (size_t g = 0; g < gpu_count; ++g)
      for (const auto& [metric, column] : kDmonColumns)
        if (const Series* s = series.Find(metric, column, phase.name, static_cast<int32_t>(g)))
          phase.rows = std::max(phase.rows, s->samples.size());
  std::erase_if(phases, [&](const Phase& p) { return p.rows == 0 || p.gpus.size() != gpu_count; });
}

// Where the capture came from, its interval and start, and the driver's versions.
void DescribeSource(const std::string& path, const std::string& text, const Profile& profile,
                    const Phase& first_phase, Capture& capture) {
  capture.info["source"] = "derived-from-nvidia-smi";
  capture.info["source_file"] = std::string(BaseName(path));
  capture.info["source_sha256"] = Sha256Hex(text);
  if (auto it = profile.metadata.attributes.find("capture.collected_at"); it != profile.metadata.attributes.end())
    capture.info["source_collected_at"] = it->second;
  capture.interval_us = 1'000'000;  // dmon's default interval
  if (auto t = nvidia_smi::ParseReportTimestamp(first_phase.report.ValueAt({"Timestamp"})))
    capture.start_unix_us = static_cast<uint64_t>(*t / 1000);

  const DeviceInfo& first = profile.devices[0];
  if (!first.driver_version.empty()) capture.system.driver_version.Set(first.driver_version);
  if (auto it = profile.metadata.attributes.find("nvml_version"); it != profile.metadata.attributes.end())
    capture.system.nvml_version.Set(it->second);
  auto cuda = Split(first.cuda_version, '.');
  if (cuda.size() == 2 && ParseInt64(cuda[0]) && ParseInt64(cuda[1]))
    capture.system.cuda_driver_version.Set(static_cast<int32_t>(*ParseInt64(cuda[0]) * 1000 + *ParseInt64(cuda[1]) * 10));
}

// The MIG devices of GPU `gpu` from its -q group `q`, named and sized from the importer's
// MIG instances, with their UUIDs from -L.
void ReadMigFacts(const DeviceInfo& info, const ReportNode& q, int gpu,
                  const std::map<std::pair<int, int>, std::string>& mig_uuids, DeviceFacts& d) {
  for (const ReportNode* node : MigDevices(q)) {
    MigFacts& m = d.migs.emplace_back();
    m.index = static_cast<uint32_t>(ParseInt64(node->ValueAt({"Index"})).value_or(static_cast<int64_t>(d.migs.size() - 1)));
    auto gi = InstanceId(node->ValueAt({"GPU Instance ID"}));
    auto ci = InstanceId(node->ValueAt({"Compute Instance ID"}));
    if (gi) m.gpu_instance_id.Set(*gi);
    if (ci) m.compute_instance_id.Set(*ci);
    for (const MigInstance& mi : info.mig_instances)
      if (gi && ci && mi.gpu_instance_id == static_cast<int32_t>(*gi) && mi.compute_instance_id == static_cast<int32_t>(*ci)) {
        m.name.Set(info.name + " MIG " + mi.profile);
        auto [ci_slices, gi_slices] = ProfileSlices(mi.profile);
        auto count = [&](std::string_view key) {
          return static_cast<uint32_t>(Number(node->ValueAt({"Device Attributes", "Shared", key})).value_or(0));
        };
        Attributes a{count("Multiprocessor count"), count("Copy Engine count"), count("Decoder count"),
                     count("Encoder count"),        count("JPG count"),         count("OFA count"),
                     gi_slices, ci_slices, 0};
        if (const ReportNode* fb = node->Find({"Shared FB Memory Usage"})) a.memory_mib = MemoryFrom(*fb).total >> 20;
        m.attributes.Set(a);
      }
    if (auto it = mig_uuids.find({gpu, static_cast<int>(m.index)}); it != mig_uuids.end()) m.uuid.Set(it->second);
  }
  if (!d.migs.empty()) d.max_mig_devices.Set(static_cast<uint32_t>(d.migs.size()));
}

// The facts of one GPU: the importer's device, completed from its -q group `q`.
void ReadDeviceFacts(const DeviceInfo& info, const ReportNode& q, DeviceFacts& d) {
  d.name.Set(info.name);
  d.uuid.Set(info.uuid);
  PciInfo pci;
  pci.bus_id = info.pci_bus_id;
  pci.domain = Hex(q.ValueAt({"PCI", "Domain"})).value_or(0);
  pci.bus = Hex(q.ValueAt({"PCI", "Bus"})).value_or(0);
  pci.device = Hex(q.ValueAt({"PCI", "Device"})).value_or(0);
  pci.device_id = Hex(q.ValueAt({"PCI", "Device Id"})).value_or(0);
  pci.subsystem_id = Hex(q.ValueAt({"PCI", "Sub System Id"})).value_or(0);
  d.pci.Set(pci);
  if (info.minor_number >= 0) d.minor_number.Set(static_cast<uint32_t>(info.minor_number));
  uint32_t arch = ArchitectureFromName(info.architecture);
  if (arch != 0) d.architecture.Set(arch);
  if (info.compute_major >= 0) d.compute_capability.Set({info.compute_major, info.compute_minor});
  if (info.max_sm_clock_mhz) d.max_sm_clock_mhz.Set(static_cast<uint32_t>(*info.max_sm_clock_mhz));
  if (info.max_mem_clock_mhz) d.max_mem_clock_mhz.Set(static_cast<uint32_t>(*info.max_mem_clock_mhz));
  if (info.power_limit_w) d.power_limit_mw.Set(static_cast<uint32_t>(std::llround(*info.power_limit_w * 1000)));
  if (auto gen = Number(q.ValueAt({"PCI", "GPU Link Info", "PCIe Generation", "Max"})))
    d.pcie_max_generation.Set(static_cast<uint32_t>(*gen));
  if (auto width = Number(q.ValueAt({"PCI", "GPU Link Info", "Link Width", "Max"})))
    d.pcie_max_width.Set(static_cast<uint32_t>(*width));
  d.mig_mode.Set({info.mig_enabled ? 1u : 0u, info.mig_enabled_pending ? 1u : 0u});
  // nvidia-smi does not report GPM; NVML documents it for Hopper and newer.
  if (arch != 0) d.gpm_supported.Set(arch >= NVML_DEVICE_ARCH_HOPPER ? 1u : 0u);
}

// Facts, from the importer's devices and the first phase's -q report, then topo -m and
// nvlink -s.
std::vector<DeviceFacts> ReadAllDeviceFacts(const Profile& profile, const SmiSections& sections) {
  const size_t gpu_count = profile.devices.size();
  std::vector<DeviceFacts> devices(gpu_count);
  auto mig_uuids = ReadMigUuids(sections.list_body);
  for (size_t g = 0; g < gpu_count; ++g) {
    const ReportNode& q = *sections.phases[0].gpus[g];
    ReadDeviceFacts(profile.devices[g], q, devices[g]);
    ReadMigFacts(profile.devices[g], q, static_cast<int>(g), mig_uuids, devices[g]);
  }
  ReadTopo(sections.topo_body, gpu_count, devices);
  ReadNvlinks(sections.nvlink_body, devices);
  return devices;
}

// The values of one GPU in one frame: its phase's series at the frame's dmon row, or the
// phase's single value for what is printed once per phase.
struct FrameSource {
  const SeriesIndex& series;
  const std::string& phase;
  int32_t gpu;
  size_t row;

  std::optional<double> At(Metric metric, std::string_view source, int64_t pid = -1) const {
    return series.At(metric, source, phase, gpu, row, pid);
  }
  std::optional<double> First(Metric metric, std::string_view source) const {
    return series.First(metric, source, phase, gpu);
  }
};

// dmon's utilization, clocks, power and temperatures; --query-gpu's memory; -q's PCIe.
void ReadDmonValues(const FrameSource& in, DeviceFrame& f) {
  auto sm = in.At(Metric::kGpuUtilPct, "sm");
  auto mem = in.At(Metric::kMemCopyUtilPct, "mem");
  if (sm && mem) f.utilization.Set({static_cast<uint32_t>(*sm), static_cast<uint32_t>(*mem)});
  auto total = in.First(Metric::kFbTotalBytes, "memory.total");
  auto used = in.First(Metric::kFbUsedBytes, "memory.used");
  auto free = in.First(Metric::kFbFreeBytes, "memory.free");
  auto reserved = in.First(Metric::kFbReservedBytes, "memory.reserved");
  if (total && used && free)
    f.memory.Set(MemoryInfo{static_cast<uint64_t>(*total), static_cast<uint64_t>(reserved.value_or(0)),
                            static_cast<uint64_t>(*free), static_cast<uint64_t>(*used)});
  auto set_u32 = [&](Answer<uint32_t>& out, std::optional<double> v, double scale = 1) {
    if (v) out.Set(static_cast<uint32_t>(std::llround(*v * scale)));
  };
  set_u32(f.power_mw, in.At(Metric::kPowerW, "pwr"), 1000);
  set_u32(f.sm_clock_mhz, in.At(Metric::kSmClockMhz, "pclk"));
  set_u32(f.mem_clock_mhz, in.At(Metric::kMemClockMhz, "mclk"));
  set_u32(f.gpu_temp_c, in.At(Metric::kGpuTempC, "gtemp"));
  set_u32(f.encoder_pct, in.At(Metric::kEncoderUtilPct, "enc"));
  set_u32(f.decoder_pct, in.At(Metric::kDecoderUtilPct, "dec"));
  set_u32(f.pcie_tx_kbps, in.First(Metric::kPcieTxBytesPerS, "PCI/Tx Throughput"), 1e-3);
  set_u32(f.pcie_rx_kbps, in.First(Metric::kPcieRxBytesPerS, "PCI/Rx Throughput"), 1e-3);
}

// The field values NVML would answer: volatile ECC totals, memory temperature, PCIe replays.
void ReadFieldValues(const FrameSource& in, DeviceFrame& f) {
  auto field = [&](uint32_t field_id, int32_t type, std::optional<double> v) {
    FieldAnswer a;
    a.field_id = field_id;
    if (v) {
      a.rc = NVML_SUCCESS;
      a.value_type = type;
      nvmlValue_t value;
      std::memset(&value, 0, sizeof(value));
      if (type == NVML_VALUE_TYPE_UNSIGNED_INT) value.uiVal = static_cast<unsigned int>(std::llround(*v));
      else value.ullVal = static_cast<unsigned long long>(std::llround(*v));
      std::memcpy(&a.bits, &value, sizeof(a.bits));
    }
    f.fields.push_back(a);  // without a value: NOT_SUPPORTED, as the device answered
  };
  auto ecc = [&](const char* source) -> std::optional<double> { return in.First(Metric::kOther, source); };
  if (auto v = ecc("ecc.errors.corrected.volatile.total"))
    field(NVML_FI_DEV_ECC_SBE_VOL_TOTAL, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, v);
  if (auto v = ecc("ecc.errors.uncorrected.volatile.total"))
    field(NVML_FI_DEV_ECC_DBE_VOL_TOTAL, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, v);
  field(NVML_FI_DEV_MEMORY_TEMP, NVML_VALUE_TYPE_UNSIGNED_INT, in.At(Metric::kMemTempC, "mtemp"));
  if (auto v = in.First(Metric::kPcieReplayCount, "PCI/Replays Since Reset"))
    field(NVML_FI_DEV_PCIE_REPLAY_COUNTER, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, v);
}

// -q's processes and MIG instance memory; pmon's process utilization (none in MIG mode).
void ReadProcessValues(const FrameSource& in, const ReportNode& q, bool mig, uint64_t time_us, DeviceFrame& f) {
  f.processes.Set(ReadProcesses(q));
  if (mig) {
    f.process_utilization.rc = NVML_ERROR_NOT_SUPPORTED;  // pmon prints "-": NVML has none on MIG
  } else {
    for (int64_t pid : in.series.Pids(Metric::kProcessSmUtilPct, "sm", in.phase, in.gpu)) {
      auto psm = in.At(Metric::kProcessSmUtilPct, "sm", pid);
      auto pmem = in.At(Metric::kProcessMemUtilPct, "mem", pid);
      if (psm && pmem)
        f.process_utilization.value.push_back(ProcessUtilization{
            static_cast<uint32_t>(pid), time_us, static_cast<uint32_t>(*psm), static_cast<uint32_t>(*pmem), 0, 0});
    }
    f.process_utilization.rc = f.process_utilization.value.empty() ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS;
  }
  for (const ReportNode* node : MigDevices(q)) {
    auto gi = InstanceId(node->ValueAt({"GPU Instance ID"}));
    const ReportNode* fb = node->Find({"Shared FB Memory Usage"});
    if (gi && fb != nullptr) f.migs[*gi].memory.Set(MemoryFrom(*fb));
  }
}

// Frames: dmon/pmon rows one second apart, phase after phase.
void AddFrames(const std::vector<Phase>& phases, const SeriesIndex& series, const std::vector<DeviceFacts>& devices,
               Capture& capture) {
  uint64_t time_us = 0;
  for (const Phase& phase : phases) {
    for (size_t row = 0; row < phase.rows; ++row, time_us += capture.interval_us) {
      Frame& frame = capture.frames.emplace_back();
      frame.time_us = time_us;
      for (size_t g = 0; g < devices.size(); ++g) {
        const FrameSource in{series, phase.name, static_cast<int32_t>(g), row};
        DeviceFrame& f = frame.devices.emplace_back();
        ReadDmonValues(in, f);
        ReadFieldValues(in, f);
        bool mig = devices[g].mig_mode.value.first == NVML_DEVICE_MIG_ENABLE;
        ReadProcessValues(in, *phase.gpus[g], mig, time_us, f);
      }
    }
  }
}

// `copies` copies of the node's GPUs (see SmiConversionOptions), in every frame too.
void ReplicateDevices(int copies, Capture& capture) {
  const std::vector<DeviceFacts> devices = std::move(capture.devices);
  std::vector<DeviceFacts> replicated;
  for (int k = 0; k < copies; ++k)
    for (const DeviceFacts& d : devices) {
      DeviceFacts c = d;
      int n = k * static_cast<int>(devices.size()) + static_cast<int>(&d - devices.data());
      if (c.uuid.ok()) c.uuid.value = Replace(c.uuid.value, n);
      if (c.pci.ok()) {
        c.pci.value.device += static_cast<uint32_t>(k);
        char id[40];
        std::snprintf(id, sizeof(id), "%08X:%02X:%02X.0", c.pci.value.domain, c.pci.value.bus & 0xFF,
                      c.pci.value.device & 0xFF);
        c.pci.value.bus_id = id;
      }
      c.minor_number.Set(static_cast<uint32_t>(n));
      for (MigFacts& m : c.migs)
        if (m.uuid.ok()) m.uuid.value = Replace(m.uuid.value, n * 16 + static_cast<int>(m.index));
      replicated.push_back(std::move(c));
    }
  capture.devices = std::move(replicated);
  for (Frame& frame : capture.frames) {
    std::vector<DeviceFrame> original = frame.devices;
    frame.devices.clear();
    for (int k = 0; k < copies; ++k) frame.devices.insert(frame.devices.end(), original.begin(), original.end());
  }
}

// The header: where it came from, what is derived, what is missing.
void WriteNotes(const std::vector<Phase>& phases, int copies, Capture& capture) {
  auto& n = capture.notes;
  n.push_back("Derived from the nvidia-smi capture " + capture.info["source_file"] + " (sha256 " +
              capture.info["source_sha256"] + ")");
  n.push_back("in shared/data/nvidia-smi, NOT recorded through NVML. Written by kraken record-nvml --from-nvidia-smi.");
  if (copies > 1)
    n.push_back(std::to_string(copies) + " copies of its GPU(s): copy k has index k, a UUID (and MIG UUIDs) "
                "ending in k, PCI device number +k, minor number k; values and processes are the same on every copy.");
  std::string phase_list;
  size_t frame_index = 0;
  for (const Phase& phase : phases) {
    phase_list += (phase_list.empty() ? "" : ", ") + phase.name + " = frames " + std::to_string(frame_index) + "-" +
                  std::to_string(frame_index + phase.rows - 1);
    frame_index += phase.rows;
  }
  n.push_back("Frames: the dmon/pmon rows, 1 s apart (dmon's default interval): " + phase_list +
              "; the pause between phases is not kept.");
  n.push_back("start_unix_us: the first -q report's time read as UTC (nvidia-smi prints local time, zone unknown).");
  n.push_back("Per frame (dmon): utilization, power (W -> mW), SM (pclk) and memory clocks, GPU and memory");
  n.push_back("temperature, encoder/decoder; (pmon) process SM/memory utilization, its enc/dec written as 0.");
  n.push_back("Per phase, the same in each of its frames: memory (--query-gpu MiB), PCIe TX/RX (-q KB/s), volatile");
  n.push_back("ECC totals (--query-gpu corrected -> field 3, uncorrected -> field 4), PCIe replays (-q), processes");
  n.push_back("with their MIG instance ids and MIG instance memory (-q).");
  n.push_back("Derived: the architecture code from -q's name; gpm_supported from the architecture (NVML documents GPM");
  n.push_back("for Hopper and newer); cuda_driver_version from \"CUDA Version\"; MIG device names \"<GPU> MIG <profile>\";");
  n.push_back("MIG slice counts from the profile; max_mig_devices = the MIG devices present; NUMA node and CPUs from");
  n.push_back("topo -m; active NVLinks from nvlink -s.");
  n.push_back("Missing (the replay answers NOT_SUPPORTED): energy counter, NVLink throughput counters and link far");
  n.push_back("ends, GPM values, SM and core counts of the whole GPU, topology between GPUs, XID events; and what the");
  n.push_back("capture itself prints as \"-\" or N/A (utilization and process utilization in MIG mode, memory");
  n.push_back("temperature on GDDR GPUs).");
}

}  // namespace

Result<Capture> CaptureFromNvidiaSmi(const std::string& path, const SmiConversionOptions& options) {
  if (options.copies < 1 || options.copies > 64) return InvalidInput("--copies must be 1..64");
  KRAKEN_ASSIGN_OR_RETURN(auto stream, OpenFileStream(path));
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*stream));
  ImportOptions import_options;
  import_options.forced_format = "nvidia-smi";
  KRAKEN_ASSIGN_OR_RETURN(std::vector<Profile> profiles, ImportBuffer(BuiltinImporters(), path, text, import_options));
  if (profiles.size() != 1 || profiles[0].devices.empty())
    return InvalidInput(path + ": no GPU in this nvidia-smi capture");
  const Profile& profile = profiles[0];
  SeriesIndex series(profile);

  SmiSections sections = SplitCapture(text);
  CountPhaseRows(series, profile.devices.size(), sections.phases);
  if (sections.phases.empty()) return InvalidInput(path + ": no phase with both a -q report and dmon rows");

  Capture capture;
  DescribeSource(path, text, profile, sections.phases[0], capture);
  std::vector<DeviceFacts> devices = ReadAllDeviceFacts(profile, sections);
  AddFrames(sections.phases, series, devices, capture);
  capture.devices = std::move(devices);
  if (options.copies > 1) ReplicateDevices(options.copies, capture);
  capture.system.device_count.Set(static_cast<uint32_t>(capture.devices.size()));
  for (uint32_t a = 0; a < capture.devices.size(); ++a)
    for (uint32_t b = a + 1; b < capture.devices.size(); ++b) capture.topology.push_back(TopologyLink{a, b, {}});
  WriteNotes(sections.phases, options.copies, capture);
  return capture;
}

}  // namespace kraken::nvml
