// What the nvidia-smi capture converter (smi_capture_converter.cc) reads from a capture
// besides the importer's Profile: the sections per phase, the importer's series indexed
// by phase, and the -q, -L, topo -m and nvlink -s text the importer does not keep.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/nvml/capture.h"
#include "importers/nvidia_smi/smi_q_report.h"
#include "model/profile.h"

namespace kraken::nvml::smi_capture {

using nvidia_smi::ReportNode;

// One phase of the capture: its -q report, and as many frames as its longest dmon column.
struct Phase {
  std::string name;
  ReportNode report;             // the phase's -q report
  std::vector<const ReportNode*> gpus;  // its "GPU <bus id>" groups
  size_t rows = 0;               // dmon rows = frames of this phase
};

// The nvidia-smi capture's sections: the capability commands' output and, per phase, its
// -q report (the phases' frame counts come from the importer's dmon series).
struct SmiSections {
  std::string list_body, topo_body, nvlink_body;  // -L, topo -m, nvlink -s
  std::vector<Phase> phases;
};

// Splits the capture into its capability sections and its phases (frame counts still 0).
SmiSections SplitCapture(std::string_view text);

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

// A value of the capture read as a number (nvidia_smi::ParseSmiValue); nullopt when it is
// not one (N/A, text).
std::optional<double> Number(std::string_view text);

// A number as the unsigned integer type NVML answers it in, rounded; nullopt when it is not
// a finite number in that type's range: a value NVML could not have answered is left out,
// never wrapped (a cast out of range would also be undefined behaviour).
template <typename T>
std::optional<T> Unsigned(std::optional<double> v) {
  static_assert(std::numeric_limits<T>::is_integer && !std::numeric_limits<T>::is_signed);
  if (!v) return std::nullopt;
  const double rounded = std::round(*v);
  if (!(rounded >= 0) || !(rounded < std::ldexp(1.0, std::numeric_limits<T>::digits))) return std::nullopt;
  return static_cast<T>(rounded);
}

// `text` when a capture line carries it unchanged (CarriesText, capture_format.h); nullopt
// otherwise, so the fact is left out rather than written unreadable.
std::optional<std::string> LineText(std::string_view text);

// A 32-bit hexadecimal value ("0x0000" in -q's PCI group); nullopt when it is not one.
std::optional<uint32_t> Hex(std::string_view text);

// The NVML_DEVICE_ARCH_* code of an architecture name ("Hopper"); 0 when unknown.
uint32_t ArchitectureFromName(std::string_view name);

// The slices of a MIG profile: "1c.3g.71gb" -> (1, 3); "3g.40gb" -> (3, 3).
std::pair<uint32_t, uint32_t> ProfileSlices(std::string_view profile);

// A -q memory group ("FB Memory Usage") in bytes: its Total, Reserved, Free and Used MiB.
MemoryInfo MemoryFrom(const ReportNode& group);

// A GPU/compute instance id, pid, NUMA node or slice count; nullopt when it is not an
// integer in 0 .. 2^32-1.
std::optional<uint32_t> Uint32Text(std::string_view text);

// topo -m: "GPU0\t X \t0-19\t0\t\tN/A" -> CPU list and NUMA node per GPU row.
void ReadTopo(std::string_view body, size_t gpus, std::vector<DeviceFacts>& devices);

// nvlink -s: "GPU 0: ..." then "\t Link 3: 26.562 GB/s" per active link.
void ReadNvlinks(std::string_view body, std::vector<DeviceFacts>& devices);

// -L: "  MIG 3g.40gb     Device  0: (UUID: MIG-...)" under "GPU 0: ...".
std::map<std::pair<int, int>, std::string> ReadMigUuids(std::string_view body);

// The MIG devices of a -q GPU group, in report order.
std::vector<const ReportNode*> MigDevices(const ReportNode& gpu);

// -q "Processes": siblings "GPU instance ID", "Compute instance ID", "Process ID" (with
// Type, Name, Used GPU Memory under it) repeat per process.
std::vector<ProcessAnswer> ReadProcesses(const ReportNode& gpu);

}  // namespace kraken::nvml::smi_capture
