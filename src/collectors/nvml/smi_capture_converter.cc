// CaptureFromNvidiaSmi: the capture's facts, frames and notes, from the importer's Profile
// and what smi_capture_reading.h reads from the capture's text.
#include "collectors/nvml/smi_capture_converter.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>

#include "base/byte_stream.h"
#include "base/sha256.h"
#include "base/text.h"
#include "collectors/nvml/smi_capture_notes.h"
#include "collectors/nvml/smi_capture_reading.h"
#include "importers/nvidia_smi/smi_values.h"
#include "importers/registry.h"

namespace kraken::nvml {
namespace {

using nvidia_smi::ReportNode;
using smi_capture::ArchitectureFromName;
using smi_capture::Hex;
using smi_capture::LineText;
using smi_capture::MemoryFrom;
using smi_capture::MigDevices;
using smi_capture::Number;
using smi_capture::Phase;
using smi_capture::ProfileSlices;
using smi_capture::ReadMigUuids;
using smi_capture::ReadNvlinks;
using smi_capture::ReadProcesses;
using smi_capture::ReadTopo;
using smi_capture::SeriesIndex;
using smi_capture::SmiSections;
using smi_capture::SplitCapture;
using smi_capture::Uint32Text;
using smi_capture::Unsigned;
using smi_capture::WriteNotes;

// A copy's UUID: the last field of "GPU-00000000-0000-0000-0000-000000000000" ends in
// `index` (hexadecimal); index 0 keeps the UUID as it is.
std::string UuidEndingIn(std::string uuid, int index) {
  if (index == 0 || uuid.size() < 12) return uuid;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%012x", index);
  return uuid.substr(0, uuid.size() - 12) + suffix;
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
  auto t = nvidia_smi::ParseReportTimestamp(first_phase.report.ValueAt({"Timestamp"}));
  if (t && *t >= 0) capture.start_unix_us = static_cast<uint64_t>(*t / 1000);

  const DeviceInfo& first = profile.devices[0];
  if (auto driver = LineText(first.driver_version)) capture.system.driver_version.Set(*driver);
  if (auto it = profile.metadata.attributes.find("nvml_version"); it != profile.metadata.attributes.end())
    if (auto nvml = LineText(it->second)) capture.system.nvml_version.Set(*nvml);
  auto cuda = Split(first.cuda_version, '.');
  auto major = cuda.size() == 2 ? Uint32Text(cuda[0]) : std::nullopt;
  auto minor = cuda.size() == 2 ? Uint32Text(cuda[1]) : std::nullopt;
  if (major && minor && *major < 1000 && *minor < 100)  // as cudaDriverGetVersion: 13000 for 13.0
    capture.system.cuda_driver_version.Set(static_cast<int32_t>(*major * 1000 + *minor * 10));
}

// The MIG devices of GPU `gpu` from its -q group `q`, named and sized from the importer's
// MIG instances, with their UUIDs from -L.
void ReadMigFacts(const DeviceInfo& info, const ReportNode& q, int gpu,
                  const std::map<std::pair<int, int>, std::string>& mig_uuids, DeviceFacts& d) {
  for (const ReportNode* node : MigDevices(q)) {
    const uint32_t index = Uint32Text(node->ValueAt({"Index"})).value_or(static_cast<uint32_t>(d.migs.size()));
    // A MIG device index printed twice names one device: the first is kept (NVML has one).
    if (std::any_of(d.migs.begin(), d.migs.end(), [&](const MigFacts& m) { return m.index == index; })) continue;
    MigFacts& m = d.migs.emplace_back();
    m.index = index;
    auto gi = Uint32Text(node->ValueAt({"GPU Instance ID"}));
    auto ci = Uint32Text(node->ValueAt({"Compute Instance ID"}));
    if (gi) m.gpu_instance_id.Set(*gi);
    if (ci) m.compute_instance_id.Set(*ci);
    for (const MigInstance& mi : info.mig_instances)
      if (gi && ci && mi.gpu_instance_id == static_cast<int32_t>(*gi) && mi.compute_instance_id == static_cast<int32_t>(*ci)) {
        if (auto name = LineText(info.name + " MIG " + mi.profile)) m.name.Set(*name);
        auto [ci_slices, gi_slices] = ProfileSlices(mi.profile);
        auto count = [&](std::string_view key) {
          return Unsigned<uint32_t>(Number(node->ValueAt({"Device Attributes", "Shared", key}))).value_or(0);
        };
        Attributes a{count("Multiprocessor count"), count("Copy Engine count"), count("Decoder count"),
                     count("Encoder count"),        count("JPG count"),         count("OFA count"),
                     gi_slices, ci_slices, 0};
        if (const ReportNode* fb = node->Find({"Shared FB Memory Usage"})) a.memory_mib = MemoryFrom(*fb).total >> 20;
        m.attributes.Set(a);
      }
    if (auto it = mig_uuids.find({gpu, static_cast<int>(m.index)}); it != mig_uuids.end())
      if (auto uuid = LineText(it->second)) m.uuid.Set(*uuid);
  }
  if (!d.migs.empty()) d.max_mig_devices.Set(static_cast<uint32_t>(d.migs.size()));
}

// The PCI facts of one GPU: its bus id (the importer's) and -q's PCI group; none when the
// bus id is not one token (the capture writes the id and the numbers on one line).
void ReadPciFacts(const DeviceInfo& info, const ReportNode& q, DeviceFacts& d) {
  const std::string& bus_id = info.pci_bus_id;
  if (bus_id.empty() || bus_id.size() >= NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE ||
      bus_id.find_first_of(" \t\r\n") != std::string::npos)
    return;
  PciInfo pci;
  pci.bus_id = bus_id;
  pci.domain = Hex(q.ValueAt({"PCI", "Domain"})).value_or(0);
  pci.bus = Hex(q.ValueAt({"PCI", "Bus"})).value_or(0);
  pci.device = Hex(q.ValueAt({"PCI", "Device"})).value_or(0);
  pci.device_id = Hex(q.ValueAt({"PCI", "Device Id"})).value_or(0);
  pci.subsystem_id = Hex(q.ValueAt({"PCI", "Sub System Id"})).value_or(0);
  d.pci.Set(pci);
}

// The facts of one GPU: the importer's device, completed from its -q group `q`.
void ReadDeviceFacts(const DeviceInfo& info, const ReportNode& q, DeviceFacts& d) {
  if (auto name = LineText(info.name)) d.name.Set(*name);
  if (auto uuid = LineText(info.uuid)) d.uuid.Set(*uuid);
  ReadPciFacts(info, q, d);
  if (info.minor_number >= 0) d.minor_number.Set(static_cast<uint32_t>(info.minor_number));
  uint32_t arch = ArchitectureFromName(info.architecture);
  if (arch != 0) d.architecture.Set(arch);
  if (info.compute_major >= 0) d.compute_capability.Set({info.compute_major, info.compute_minor});
  auto set_u32 = [](Answer<uint32_t>& out, std::optional<double> v) {
    if (auto n = Unsigned<uint32_t>(v)) out.Set(*n);
  };
  set_u32(d.max_sm_clock_mhz, info.max_sm_clock_mhz);
  set_u32(d.max_mem_clock_mhz, info.max_mem_clock_mhz);
  if (info.power_limit_w) set_u32(d.power_limit_mw, *info.power_limit_w * 1000);
  set_u32(d.pcie_max_generation, Number(q.ValueAt({"PCI", "GPU Link Info", "PCIe Generation", "Max"})));
  set_u32(d.pcie_max_width, Number(q.ValueAt({"PCI", "GPU Link Info", "Link Width", "Max"})));
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
  auto sm = Unsigned<uint32_t>(in.At(Metric::kGpuUtilPct, "sm"));
  auto mem = Unsigned<uint32_t>(in.At(Metric::kMemCopyUtilPct, "mem"));
  if (sm && mem) f.utilization.Set({*sm, *mem});
  auto total = Unsigned<uint64_t>(in.First(Metric::kFbTotalBytes, "memory.total"));
  auto used = Unsigned<uint64_t>(in.First(Metric::kFbUsedBytes, "memory.used"));
  auto free = Unsigned<uint64_t>(in.First(Metric::kFbFreeBytes, "memory.free"));
  auto reserved = Unsigned<uint64_t>(in.First(Metric::kFbReservedBytes, "memory.reserved"));
  if (total && used && free) f.memory.Set(MemoryInfo{*total, reserved.value_or(0), *free, *used});
  auto set_u32 = [&](Answer<uint32_t>& out, std::optional<double> v, double scale = 1) {
    if (auto n = Unsigned<uint32_t>(v ? std::optional<double>(*v * scale) : std::nullopt)) out.Set(*n);
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

// Field `field_id` answered with `value` as `type` (NVML_VALUE_TYPE_UNSIGNED_INT, else
// unsigned long long); without a value, or one out of the type's range, NOT_SUPPORTED.
FieldAnswer Field(uint32_t field_id, int32_t type, std::optional<double> value) {
  FieldAnswer a;
  a.field_id = field_id;
  nvmlValue_t bits;
  std::memset(&bits, 0, sizeof(bits));
  if (type == NVML_VALUE_TYPE_UNSIGNED_INT) {
    auto v = Unsigned<unsigned int>(value);
    if (!v) return a;
    bits.uiVal = *v;
  } else {
    auto v = Unsigned<unsigned long long>(value);
    if (!v) return a;
    bits.ullVal = *v;
  }
  a.rc = NVML_SUCCESS;
  a.value_type = type;
  std::memcpy(&a.bits, &bits, sizeof(a.bits));
  return a;
}

// The field values NVML would answer: volatile ECC totals, memory temperature, PCIe replays.
void ReadFieldValues(const FrameSource& in, DeviceFrame& f) {
  auto field = [&](uint32_t field_id, int32_t type, std::optional<double> v) {
    f.fields.push_back(Field(field_id, type, v));  // without a value: NOT_SUPPORTED, as the device answered
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

// The health fields NVML would answer on the slow cadence, from -q's "Remapped Rows" and
// "Retired Pages" (per phase): counts as numbers, Pending/Failure as Yes/No. What -q prints
// as N/A (retired pages on Ampere and newer, remapped rows in MIG mode) is left out, so the
// replay answers NOT_SUPPORTED as NVML did; nvidia-smi -q has no NVLink error totals. The
// value type is unsigned int, the type nvmlDeviceGetRemappedRows/GetRetiredPages return.
void ReadHealthValues(const ReportNode& q, DeviceFrame& f) {
  struct Source {
    uint32_t field_id;
    const char* section;
    const char* key;
  };
  constexpr Source kSources[] = {
      {NVML_FI_DEV_REMAPPED_COR, "Remapped Rows", "Correctable Error"},
      {NVML_FI_DEV_REMAPPED_UNC, "Remapped Rows", "Uncorrectable Error"},
      {NVML_FI_DEV_REMAPPED_PENDING, "Remapped Rows", "Pending"},
      {NVML_FI_DEV_REMAPPED_FAILURE, "Remapped Rows", "Remapping Failure Occurred"},
      {NVML_FI_DEV_RETIRED_SBE, "Retired Pages", "Single Bit ECC"},
      {NVML_FI_DEV_RETIRED_DBE, "Retired Pages", "Double Bit ECC"},
      {NVML_FI_DEV_RETIRED_PENDING, "Retired Pages", "Pending Page Blacklist"},
  };
  for (const Source& source : kSources) {
    const std::string text(Trim(q.ValueAt({source.section, source.key})));
    std::optional<double> value = text == "Yes" ? 1.0 : text == "No" ? 0.0 : Number(text);
    if (Unsigned<unsigned int>(value)) f.fields.push_back(Field(source.field_id, NVML_VALUE_TYPE_UNSIGNED_INT, value));
  }
}

// -q's processes and MIG instance memory; pmon's process utilization (none in MIG mode).
void ReadProcessValues(const FrameSource& in, const ReportNode& q, bool mig, uint64_t time_us, DeviceFrame& f) {
  f.processes.Set(ReadProcesses(q));
  if (mig) {
    f.process_utilization.rc = NVML_ERROR_NOT_SUPPORTED;  // pmon prints "-": NVML has none on MIG
  } else {
    for (int64_t pid : in.series.Pids(Metric::kProcessSmUtilPct, "sm", in.phase, in.gpu)) {
      auto psm = Unsigned<uint32_t>(in.At(Metric::kProcessSmUtilPct, "sm", pid));
      auto pmem = Unsigned<uint32_t>(in.At(Metric::kProcessMemUtilPct, "mem", pid));
      if (psm && pmem && pid >= 0 && pid <= std::numeric_limits<uint32_t>::max())
        f.process_utilization.value.push_back(
            ProcessUtilization{static_cast<uint32_t>(pid), time_us, *psm, *pmem, 0, 0});
    }
    f.process_utilization.rc = f.process_utilization.value.empty() ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS;
  }
  for (const ReportNode* node : MigDevices(q)) {
    auto gi = Uint32Text(node->ValueAt({"GPU Instance ID"}));
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
        ReadHealthValues(*phase.gpus[g], f);
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
      if (c.uuid.ok()) c.uuid.value = UuidEndingIn(c.uuid.value, n);
      if (c.pci.ok()) {
        c.pci.value.device += static_cast<uint32_t>(k);
        char id[40];
        std::snprintf(id, sizeof(id), "%08X:%02X:%02X.0", c.pci.value.domain, c.pci.value.bus & 0xFF,
                      c.pci.value.device & 0xFF);
        c.pci.value.bus_id = id;
      }
      c.minor_number.Set(static_cast<uint32_t>(n));
      for (MigFacts& m : c.migs)
        if (m.uuid.ok()) m.uuid.value = UuidEndingIn(m.uuid.value, n * 16 + static_cast<int>(m.index));
      replicated.push_back(std::move(c));
    }
  capture.devices = std::move(replicated);
  for (Frame& frame : capture.frames) {
    std::vector<DeviceFrame> original = frame.devices;
    frame.devices.clear();
    for (int k = 0; k < copies; ++k) frame.devices.insert(frame.devices.end(), original.begin(), original.end());
  }
}

}  // namespace

Result<Capture> CaptureFromNvidiaSmi(const std::string& path, const SmiConversionOptions& options) {
  if (options.copies < 1 || options.copies > 64) return InvalidInput("--copies must be 1..64");
  KRAKEN_ASSIGN_OR_RETURN(auto stream, OpenFileStream(path));
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*stream));
  return CaptureFromNvidiaSmiText(path, text, options);
}

Result<Capture> CaptureFromNvidiaSmiText(const std::string& path, const std::string& text,
                                         const SmiConversionOptions& options) {
  if (options.copies < 1 || options.copies > 64) return InvalidInput("--copies must be 1..64");
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
