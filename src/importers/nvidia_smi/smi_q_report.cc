#include "importers/nvidia_smi/smi_q_report.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "base/text.h"
#include "importers/nvidia_smi/smi_values.h"

namespace kraken::nvidia_smi {
namespace {

constexpr std::string_view kReportMarker = "NVSMI LOG";

using Path = std::array<std::string_view, 2>;

// Sampled values of a report, each a (group, key) path. Where drivers spell a value in
// several ways, the first path found for a metric wins.
struct ReportMetric {
  Path path;
  Metric metric;
};
constexpr ReportMetric kReportMetrics[] = {
    {{"FB Memory Usage", "Used"}, Metric::kFbUsedBytes},
    {{"FB Memory Usage", "Free"}, Metric::kFbFreeBytes},
    {{"FB Memory Usage", "Total"}, Metric::kFbTotalBytes},
    {{"FB Memory Usage", "Reserved"}, Metric::kFbReservedBytes},
    {{"Utilization", "GPU"}, Metric::kGpuUtilPct},
    {{"Utilization", "Gpu"}, Metric::kGpuUtilPct},
    {{"Utilization", "Memory"}, Metric::kMemCopyUtilPct},
    {{"Utilization", "Encoder"}, Metric::kEncoderUtilPct},
    {{"Utilization", "Decoder"}, Metric::kDecoderUtilPct},
    {{"Temperature", "GPU Current Temp"}, Metric::kGpuTempC},
    {{"Temperature", "Memory Current Temp"}, Metric::kMemTempC},
    {{"GPU Power Readings", "Average Power Draw"}, Metric::kPowerW},
    {{"GPU Power Readings", "Power Draw"}, Metric::kPowerW},
    {{"Power Readings", "Power Draw"}, Metric::kPowerW},
    {{"GPU Power Readings", "Current Power Limit"}, Metric::kPowerLimitW},
    {{"Power Readings", "Enforced Power Limit"}, Metric::kPowerLimitW},
    {{"Power Readings", "Power Limit"}, Metric::kPowerLimitW},
    {{"Clocks", "SM"}, Metric::kSmClockMhz},
    {{"Clocks", "Memory"}, Metric::kMemClockMhz},
    {{"PCI", "Tx Throughput"}, Metric::kPcieTxBytesPerS},
    {{"PCI", "Rx Throughput"}, Metric::kPcieRxBytesPerS},
    {{"PCI", "Replays Since Reset"}, Metric::kPcieReplayCount},
    // Memory health (NVML's retired pages before Ampere, remapped rows since; "N/A" where
    // the GPU has the other mechanism).
    {{"Retired Pages", "Single Bit ECC"}, Metric::kRetiredPagesSbeCount},
    {{"Retired Pages", "Double Bit ECC"}, Metric::kRetiredPagesDbeCount},
    {{"Retired Pages", "Pending Page Blacklist"}, Metric::kRetiredPagesPending},
    {{"Remapped Rows", "Correctable Error"}, Metric::kRemappedRowsCorrectableCount},
    {{"Remapped Rows", "Uncorrectable Error"}, Metric::kRemappedRowsUncorrectableCount},
    {{"Remapped Rows", "Pending"}, Metric::kRemappedRowsPending},
    {{"Remapped Rows", "Remapping Failure Occurred"}, Metric::kRemappedRowsFailure},
};

constexpr Path kPowerLimitPaths[] = {{"GPU Power Readings", "Current Power Limit"},
                                     {"GPU Power Readings", "Enforced Power Limit"},
                                     {"Power Readings", "Enforced Power Limit"},
                                     {"Power Readings", "Power Limit"}};

std::string_view ValueAtPath(const ReportNode& node, const Path& path) { return node.ValueAt({path[0], path[1]}); }

// A number with the unit the report printed ("81559 MiB", "16x", "5").
std::optional<double> Number(std::string_view text) {
  SmiValue value = ParseSmiValue(text);
  if (value.kind != ValueKind::kNumber) return std::nullopt;
  return value.number;
}

std::optional<double> Converted(Metric metric, std::string_view text) {
  SmiValue value = ParseSmiValue(text);
  if (value.kind != ValueKind::kNumber) return std::nullopt;
  return ToMetricUnit(metric, value.number, value.unit);
}

int32_t IntOr(std::string_view text, int32_t fallback) {
  auto number = ParseInt64(text);
  return number ? static_cast<int32_t>(*number) : fallback;
}

void ReadDeviceFacts(const ReportNode& gpu, const ReportNode& root, DeviceInfo& d) {
  if (auto arch = gpu.ValueAt({"Product Architecture"}); !IsMissingMarker(arch)) d.architecture = std::string(arch);
  d.minor_number = IntOr(gpu.ValueAt({"Minor Number"}), d.minor_number);
  if (gpu.Find({"MIG Mode", "Current"}) != nullptr) {
    d.mig_enabled = EqualsIgnoreCase(gpu.ValueAt({"MIG Mode", "Current"}), "Enabled");
    d.mig_enabled_pending = EqualsIgnoreCase(gpu.ValueAt({"MIG Mode", "Pending"}), "Enabled");
  }
  if (auto v = root.ValueAt({"Driver Version"}); !IsMissingMarker(v)) d.driver_version = std::string(v);
  if (auto v = root.ValueAt({"CUDA Version"}); !IsMissingMarker(v)) d.cuda_version = std::string(v);
  if (auto bytes = Converted(Metric::kFbTotalBytes, gpu.ValueAt({"FB Memory Usage", "Total"}))) {
    d.memory_bytes = static_cast<int64_t>(*bytes);
  }
  for (const Path& path : kPowerLimitPaths) {
    if (auto watts = Converted(Metric::kPowerLimitW, ValueAtPath(gpu, path))) {
      d.power_limit_w = *watts;
      break;
    }
  }
  if (auto mhz = Converted(Metric::kSmClockMhz, gpu.ValueAt({"Max Clocks", "SM"}))) d.max_sm_clock_mhz = *mhz;
  if (auto mhz = Converted(Metric::kMemClockMhz, gpu.ValueAt({"Max Clocks", "Memory"}))) d.max_mem_clock_mhz = *mhz;
  // The link's maximum, not its current state: idle GPUs drop to a lower generation.
  if (const ReportNode* link = gpu.Find({"PCI", "GPU Link Info"})) {
    if (auto gen = Number(link->ValueAt({"PCIe Generation", "Max"}))) d.pcie_generation = static_cast<int>(*gen);
    if (auto width = Number(link->ValueAt({"Link Width", "Max"}))) d.pcie_link_width = static_cast<int>(*width);
  }
}

void ReadMigDevices(const ReportNode& gpu, const GpuRef& ref, ProfileBuilder& builder) {
  for (const ReportNode& node : gpu.children) {
    if (node.key != "MIG Device") continue;
    auto index = ParseInt64(node.ValueAt({"Index"}));
    if (!index) {
      builder.Count("nvidia_smi_unparsable_values");
      continue;
    }
    MigInstance& mig = builder.Mig(ref, static_cast<int32_t>(*index));
    mig.gpu_instance_id = IntOr(node.ValueAt({"GPU Instance ID"}), mig.gpu_instance_id);
    mig.compute_instance_id = IntOr(node.ValueAt({"Compute Instance ID"}), mig.compute_instance_id);
    if (const ReportNode* shared = node.Find({"Device Attributes", "Shared"})) {
      mig.sm_count = IntOr(shared->ValueAt({"Multiprocessor count"}), mig.sm_count);
    }
    std::string_view total = node.ValueAt({"Shared FB Memory Usage", "Total"});
    if (total.empty()) total = node.ValueAt({"FB Memory Usage", "Total"});
    if (auto bytes = Converted(Metric::kFbTotalBytes, total)) mig.memory_bytes = static_cast<int64_t>(*bytes);
  }
}

void ReadSamples(const ReportNode& gpu, const GpuRef& ref, TimeNs time, ProfileBuilder& builder) {
  SeriesEntity entity = builder.GpuEntity(ref);
  std::vector<Metric> done;
  for (const ReportMetric& m : kReportMetrics) {
    if (std::find(done.begin(), done.end(), m.metric) != done.end()) continue;
    const ReportNode* node = gpu.Find({m.path[0], m.path[1]});
    if (node == nullptr) continue;
    done.push_back(m.metric);
    SmiValue value = ParseSmiValue(node->value);
    if (value.kind == ValueKind::kMissing) continue;
    std::optional<double> converted = FlagValue(m.metric, node->value);
    if (!converted && value.kind == ValueKind::kNumber) converted = ToMetricUnit(m.metric, value.number, value.unit);
    if (!converted) {
      builder.Count(value.kind == ValueKind::kText ? "nvidia_smi_unparsable_values" : "nvidia_smi_unknown_units");
      continue;
    }
    builder.AddSample(m.metric, std::string(m.path[0]) + "/" + std::string(m.path[1]), entity, time, *converted);
  }
  // Processes: "GPU instance ID" and "Compute instance ID" precede each "Process ID",
  // whose children hold its name and memory.
  const ReportNode* processes = gpu.Find({"Processes"});
  if (processes == nullptr) return;
  int32_t gpu_instance = -1;
  for (const ReportNode& node : processes->children) {
    if (node.key == "GPU instance ID") {
      gpu_instance = IntOr(node.value, -1);
      continue;
    }
    if (node.key != "Process ID") continue;
    auto pid = ParseInt64(node.value);
    SmiValue memory = ParseSmiValue(node.ValueAt({"Used GPU Memory"}));
    auto bytes = pid && memory.kind == ValueKind::kNumber
                     ? ToMetricUnit(Metric::kProcessUsedMemoryBytes, memory.number, memory.unit)
                     : std::nullopt;
    if (!pid || (memory.kind != ValueKind::kMissing && !bytes)) builder.Count("nvidia_smi_unparsable_values");
    if (pid && bytes) {
      SeriesEntity process = entity;
      process.pid = *pid;
      process.process_name = std::string(node.ValueAt({"Name"}));
      process.gpu_instance_id = gpu_instance;
      builder.AddSample(Metric::kProcessUsedMemoryBytes, "Processes/Used GPU Memory", process, time, *bytes);
    }
    gpu_instance = -1;
  }
}

int ReadOneReport(const ReportNode& root, ProfileBuilder& builder) {
  if (auto v = root.ValueAt({"Driver Version"}); !IsMissingMarker(v))
    builder.SetAttribute("driver_version", std::string(v));
  if (auto v = root.ValueAt({"CUDA Version"}); !IsMissingMarker(v))
    builder.SetAttribute("cuda_version", std::string(v));
  std::optional<TimeNs> time = ParseReportTimestamp(root.ValueAt({"Timestamp"}));
  if (time) builder.SetAttribute("timestamps", std::string(kLocalTimeNote));
  int position = 0;
  for (const ReportNode& gpu : root.children) {
    if (!StartsWith(gpu.key, "GPU ") || !gpu.value.empty() || gpu.children.empty()) continue;
    GpuRef ref;
    ref.pci_bus_id = std::string(gpu.ValueAt({"PCI", "Bus Id"}));
    if (ref.pci_bus_id.empty()) ref.pci_bus_id = std::string(Trim(gpu.key.substr(4)));
    if (auto uuid = gpu.ValueAt({"GPU UUID"}); !IsMissingMarker(uuid)) ref.uuid = std::string(uuid);
    if (auto name = gpu.ValueAt({"Product Name"}); !IsMissingMarker(name)) ref.name = std::string(name);
    builder.SetReportPosition(ref, position++);
    ReadDeviceFacts(gpu, root, builder.Device(ref));
    ReadMigDevices(gpu, ref, builder);
    if (time) {
      ReadSamples(gpu, ref, *time, builder);
    } else {
      builder.Count("nvidia_smi_bad_timestamps");
    }
  }
  return position;
}

}  // namespace

const ReportNode* ReportNode::Find(std::initializer_list<std::string_view> path) const {
  const ReportNode* node = this;
  for (std::string_view key : path) {
    const ReportNode* next = nullptr;
    for (const ReportNode& child : node->children) {
      if (child.key == key) {
        next = &child;
        break;
      }
    }
    if (next == nullptr) return nullptr;
    node = next;
  }
  return node;
}

std::string_view ReportNode::ValueAt(std::initializer_list<std::string_view> path) const {
  const ReportNode* node = Find(path);
  return node == nullptr ? std::string_view() : std::string_view(node->value);
}

ReportNode ParseReportTree(std::string_view text) {
  ReportNode root;
  std::vector<std::pair<int, ReportNode*>> open = {{-1, &root}};  // ancestors of the next line
  for (std::string_view line : Lines(text)) {
    std::string_view content = Trim(line);
    if (content.empty() || content.find(kReportMarker) != std::string_view::npos) continue;
    if (content.find_first_not_of('=') == std::string_view::npos) continue;  // rest of a marker line
    int indent = 0;
    for (char c : line) {
      if (c == ' ') {
        indent += 1;
      } else if (c == '\t') {
        indent += 8;
      } else {
        break;
      }
    }
    ReportNode node;
    // The separator is a colon after the padded key: "Bus Id      : 00000000:00:09.0".
    // "GPU 00000000:00:09.0" has colons only inside its key, so it is a group.
    size_t colon = content.find(" :");
    if (colon != std::string_view::npos) {
      node.key = std::string(Trim(content.substr(0, colon)));
      node.value = std::string(Trim(content.substr(colon + 2)));
    } else {
      node.key = std::string(content);
    }
    while (open.back().first >= indent) open.pop_back();
    ReportNode* parent = open.back().second;
    parent->children.push_back(std::move(node));
    // Only the newest child of each open node can gain children, so the pointers on the
    // stack stay valid: a push_back moves siblings that are no longer open.
    open.emplace_back(indent, &parent->children.back());
  }
  return root;
}

bool ContainsReport(std::string_view text) { return text.find(kReportMarker) != std::string_view::npos; }

int ParseReport(const Section& section, ProfileBuilder& builder) {
  // -q -l logs repeat the report; each NVSMI LOG line opens one.
  std::string_view body = section.body;
  int gpus = 0;
  size_t start = body.find(kReportMarker);
  while (start != std::string_view::npos) {
    size_t next = body.find(kReportMarker, start + kReportMarker.size());
    std::string_view report =
        body.substr(start, next == std::string_view::npos ? std::string_view::npos : next - start);
    gpus += ReadOneReport(ParseReportTree(report), builder);
    start = next;
  }
  return gpus;
}

}  // namespace kraken::nvidia_smi
