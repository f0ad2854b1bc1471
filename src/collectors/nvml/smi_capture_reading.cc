// The readers declared in smi_capture_reading.h.
#include "collectors/nvml/smi_capture_reading.h"

#include "base/text.h"
#include "collectors/nvml/capture_format.h"
#include "importers/nvidia_smi/capture_sections.h"
#include "importers/nvidia_smi/smi_values.h"

namespace kraken::nvml::smi_capture {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

SmiSections SplitCapture(std::string_view text) {
  SmiSections sections;
  std::vector<Phase>& phases = sections.phases;
  for (const nvidia_smi::Section& section : nvidia_smi::SplitSections(text)) {
    if (section.command == "nvidia-smi -L") sections.list_body = section.body;
    if (section.command == "nvidia-smi topo -m") sections.topo_body = section.body;
    if (section.command == "nvidia-smi nvlink -s") sections.nvlink_body = section.body;
    if (section.phase.empty() || section.phase == "capabilities") continue;
    if (phases.empty() || phases.back().name != section.phase) phases.emplace_back().name = section.phase;
    Phase& phase = phases.back();
    if (section.command == "nvidia-smi -q") {
      // A phase with a second -q report keeps the last; the groups of the one it replaces
      // are gone with it.
      phase.report = nvidia_smi::ParseReportTree(section.body);
      phase.gpus.clear();
      for (const ReportNode& child : phase.report.children)
        if (StartsWith(child.key, "GPU ")) phase.gpus.push_back(&child);
    }
  }
  return sections;
}

std::optional<double> Number(std::string_view text) {
  nvidia_smi::SmiValue v = nvidia_smi::ParseSmiValue(text);
  if (v.kind != nvidia_smi::ValueKind::kNumber) return std::nullopt;
  return v.number;
}

std::optional<std::string> LineText(std::string_view text) {
  if (!CarriesText(text)) return std::nullopt;
  return std::string(text);
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

std::pair<uint32_t, uint32_t> ProfileSlices(std::string_view profile) {
  uint32_t ci = 0, gi = 0;
  size_t g = profile.find("g.");
  if (g == std::string_view::npos) return {0, 0};
  size_t start = profile.rfind('.', g);
  start = start == std::string_view::npos ? 0 : start + 1;
  gi = Uint32Text(profile.substr(start, g - start)).value_or(0);
  size_t c = profile.find("c.");
  ci = c != std::string_view::npos && c < g ? Uint32Text(profile.substr(0, c)).value_or(0) : gi;
  return {ci, gi};
}

MemoryInfo MemoryFrom(const ReportNode& group) {
  auto mib = [&](std::string_view key) {
    return Unsigned<uint64_t>(Number(group.ValueAt({key})).value_or(0) * kMiB).value_or(0);
  };
  return MemoryInfo{mib("Total"), mib("Reserved"), mib("Free"), mib("Used")};
}

std::optional<uint32_t> Uint32Text(std::string_view text) {
  auto v = ParseInt64(Trim(text));
  if (!v || *v < 0 || *v > std::numeric_limits<uint32_t>::max()) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

void ReadTopo(std::string_view body, size_t gpus, std::vector<DeviceFacts>& devices) {
  for (std::string_view line : nvidia_smi::Lines(body)) {
    auto tokens = SplitWhitespace(line);
    if (tokens.empty() || !StartsWith(tokens[0], "GPU")) continue;
    auto index = ParseInt64(tokens[0].substr(3));
    if (!index || *index < 0 || static_cast<size_t>(*index) >= devices.size() || tokens.size() < gpus + 3) continue;
    DeviceFacts& d = devices[static_cast<size_t>(*index)];
    std::vector<uint32_t> cpus;
    if (ParseCpuList(tokens[gpus + 1], cpus)) d.cpu_affinity.Set(cpus);
    if (auto numa = Uint32Text(tokens[gpus + 2])) d.numa_node.Set(*numa);
  }
}

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

std::vector<const ReportNode*> MigDevices(const ReportNode& gpu) {
  std::vector<const ReportNode*> migs;
  for (const ReportNode& child : gpu.children)
    if (child.key == "MIG Device") migs.push_back(&child);
  return migs;
}

std::vector<ProcessAnswer> ReadProcesses(const ReportNode& gpu) {
  std::vector<ProcessAnswer> processes;
  const ReportNode* group = gpu.Find({"Processes"});
  if (group == nullptr) return processes;
  uint32_t gi = NVML_NO_INSTANCE_ID, ci = NVML_NO_INSTANCE_ID;
  for (const ReportNode& node : group->children) {
    if (node.key == "GPU instance ID") gi = Uint32Text(node.value).value_or(NVML_NO_INSTANCE_ID);
    if (node.key == "Compute instance ID") ci = Uint32Text(node.value).value_or(NVML_NO_INSTANCE_ID);
    if (node.key != "Process ID") continue;
    auto pid = Uint32Text(node.value);
    auto used = Number(node.ValueAt({"Used GPU Memory"}));
    if (pid) processes.push_back(ProcessAnswer{*pid, Unsigned<uint64_t>(used.value_or(0) * kMiB).value_or(0), gi, ci});
    gi = ci = NVML_NO_INSTANCE_ID;
  }
  return processes;
}

}  // namespace kraken::nvml::smi_capture
