// Importer for Nsight Compute CSV exports (ncu --csv): the details page, --metrics
// lists, section exports and the raw page. One profile per file, one Kernel per
// profiled launch ID with its measured KernelCounters. ncu replays kernels one at a
// time, so there is no timeline: start_ns stays 0 and kernel_timestamps_valid is false.
#include <map>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/ncu/ncu_metric_map.h"
#include "importers/ncu/ncu_table.h"

namespace kraken {
namespace {

using ncu::NcuKernelRecord;

bool HasProfPrefixLine(std::string_view head) {
  for (std::string_view line : Split(head, '\n'))
    if (StartsWith(line, "==PROF==")) return true;
  return false;
}

// "8.0" -> major 8, minor 0.
void ParseComputeCapability(std::string_view text, DeviceInfo* device) {
  std::vector<std::string_view> parts = Split(Trim(text), '.');
  if (parts.size() != 2) return;
  auto major = ParseInt64(parts[0]), minor = ParseInt64(parts[1]);
  if (!major || !minor || *major < 0 || *major > 100 || *minor < 0 || *minor > 100) return;
  device->compute_major = static_cast<int32_t>(*major);
  device->compute_minor = static_cast<int32_t>(*minor);
}

class ProfileBuilder {
 public:
  explicit ProfileBuilder(Profile* profile) : profile_(profile) {}

  void AddKernel(const NcuKernelRecord& record) {
    ncu::MetricIndex metrics(record.metrics);
    ncu::LaunchFacts facts = ncu::MapLaunchFacts(metrics);
    Kernel kernel;
    kernel.name = profile_->strings.Intern(record.kernel_name);
    kernel.start_ns = 0;  // no timeline: see the file comment
    if (facts.duration_ns) {
      kernel.duration_ns = *facts.duration_ns;
      if (facts.duration_from_cycles) Count("ncu_durations_from_cycles");
    } else {
      Count("ncu_kernels_without_duration");
    }
    auto device = ParseInt64(record.device);
    if (device && *device >= 0 && *device <= INT32_MAX) {
      kernel.device = static_cast<int32_t>(*device);
    } else if (facts.device) {
      kernel.device = *facts.device;
    }
    if (auto stream = ParseInt64(record.stream)) {
      kernel.stream = *stream;
    } else if (facts.stream) {
      kernel.stream = *facts.stream;
    }
    if (auto grid = ncu::ParseDim3(record.grid_size)) kernel.grid = *grid;
    if (auto block = ncu::ParseDim3(record.block_size)) kernel.block = *block;
    if (facts.registers_per_thread) kernel.registers_per_thread = *facts.registers_per_thread;
    if (facts.shared_memory_bytes) kernel.shared_memory_bytes = *facts.shared_memory_bytes;
    KernelCounters counters = ncu::MapKernelCounters(metrics);
    if (ncu::TensorWorkUncounted(metrics)) Count("ncu_tensor_flops_uncounted");
    if (ncu::HasAnyCounter(counters)) {
      kernel.counters_index = static_cast<int32_t>(profile_->kernel_counters.size());
      profile_->kernel_counters.push_back(counters);
    }
    profile_->kernels.push_back(kernel);
    AddDevice(kernel.device, record, metrics);
  }

  void Finish() {
    for (auto& [index, device] : devices_) profile_->devices.push_back(std::move(device));
  }

 private:
  void Count(const std::string& counter) { ++profile_->import_counters[counter]; }

  // One DeviceInfo per device index; a kernel without an index adds one (index -1)
  // only when its row or metrics say something about the device.
  void AddDevice(int32_t index, const NcuKernelRecord& record, const ncu::MetricIndex& metrics) {
    auto it = devices_.find(index);
    if (it == devices_.end()) {
      DeviceInfo device;
      device.index = index;
      device.vendor = Vendor::kNvidia;
      if (index < 0 && record.cc.empty() && !metrics.Text("device__attribute_display_name") &&
          !metrics.Value("device__attribute_compute_capability_major"))
        return;
      it = devices_.emplace(index, std::move(device)).first;
    }
    if (it->second.compute_major < 0) ParseComputeCapability(record.cc, &it->second);
    ncu::MapDeviceAttributes(metrics, &it->second);
  }

  Profile* profile_;
  std::map<int32_t, DeviceInfo> devices_;
};

class NcuCsvImporter final : public Importer {
 public:
  const ImporterDescriptor& descriptor() const override {
    static const ImporterDescriptor kDescriptor{
        "ncu-csv", "Nsight Compute CSV: per-kernel counters (details page, --metrics, sections, raw page)",
        "ncu --csv [--page raw] output, ==PROF== lines and program output in front allowed"};
    return kDescriptor;
  }

  SniffResult Sniff(std::string_view head) const override {
    if (auto header = ncu::FindHeaderLine(head)) {
      std::string_view line = head.substr(header->offset);
      line = line.substr(0, line.find('\n'));
      if (line.find("Kernel Name") != std::string_view::npos) return SniffResult::kYes;
    }
    // Only ncu prints "==PROF==" lines; its table may start beyond the sniffed bytes.
    return HasProfPrefixLine(head) ? SniffResult::kYes : SniffResult::kNo;
  }

  Status Import(ImportInput& input, ProfileSink& sink) const override {
    KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*input.stream));
    if (input.progress) input.progress(input.stream->source_offset());
    KRAKEN_ASSIGN_OR_RETURN(ncu::NcuTable table, ncu::ReadNcuTable(text));
    Profile& profile = sink.NewProfile(input, descriptor().name);
    profile.metadata.kernel_timestamps_valid = false;
    profile.metadata.accelerator_vendor = Vendor::kNvidia;
    profile.metadata.attributes["ncu_layout"] = table.layout == ncu::Layout::kRaw ? "raw" : "details";
    const NcuKernelRecord& first = table.kernels.front();
    profile.metadata.hostname = first.host_name;
    if (!first.process_name.empty()) profile.metadata.attributes["process_name"] = first.process_name;
    if (!first.process_id.empty()) profile.metadata.attributes["process_id"] = first.process_id;
    profile.import_counters = table.counters;
    profile.import_counters["ncu_kernels"] = static_cast<int64_t>(table.kernels.size());
    ProfileBuilder builder(&profile);
    for (const NcuKernelRecord& record : table.kernels) builder.AddKernel(record);
    builder.Finish();
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Importer> CreateNcuCsvImporter() { return std::make_unique<NcuCsvImporter>(); }

}  // namespace kraken
