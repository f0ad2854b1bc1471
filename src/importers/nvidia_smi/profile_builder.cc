#include "importers/nvidia_smi/profile_builder.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "base/text.h"
#include "model/time_base.h"

namespace kraken::nvidia_smi {
namespace {

// A GPU instance's profile from a MIG device's: "1c.3g.71gb" (one compute instance of a
// 3g.71gb GPU instance) -> "3g.71gb", the name dcgm-exporter's GPU_I_PROFILE uses.
std::string GpuInstanceProfile(const std::string& profile) {
  size_t dot = profile.find('.');
  if (dot != std::string::npos && dot > 0 && profile[dot - 1] == 'c' &&
      profile.find('.', dot + 1) != std::string::npos) {
    return profile.substr(dot + 1);
  }
  return profile;
}

void FillIfEmpty(std::string& field, const std::string& value) {
  if (field.empty() && !value.empty()) field = value;
}

}  // namespace

std::string NormalizePciBusId(std::string_view bus_id) {
  std::string id(Trim(bus_id));
  for (char& c : id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  size_t colon = id.find(':');
  // nvidia-smi writes a 32-bit domain ("00000000:"), sysfs a 16-bit one ("0000:").
  if (colon != std::string::npos && colon < 8 && id.find(':', colon + 1) != std::string::npos) {
    id.insert(0, 8 - colon, '0');
  }
  return id;
}

int ProfileBuilder::FindGpu(const GpuRef& ref) const {
  if (!ref.identified()) return -1;  // never guess which GPU an unnamed row meant
  std::string pci = ref.pci_bus_id.empty() ? std::string() : NormalizePciBusId(ref.pci_bus_id);
  for (size_t i = 0; i < gpus_.size(); ++i) {
    const DeviceInfo& d = gpus_[i].info;
    // Every identity both sides know must agree, and at least one must be known to both:
    // masked captures give every GPU the same all-zero UUID, so the UUID alone is not enough
    // when the bus id or the index tells GPUs apart.
    int agreements = 0;
    bool conflict = false;
    auto compare = [&](bool both_known, bool equal) {
      if (!both_known) return;
      if (equal) {
        ++agreements;
      } else {
        conflict = true;
      }
    };
    compare(!pci.empty() && !d.pci_bus_id.empty(), pci == d.pci_bus_id);
    compare(!ref.uuid.empty() && !d.uuid.empty(), ref.uuid == d.uuid);
    compare(ref.index >= 0 && d.index >= 0, ref.index == d.index);
    if (!conflict && agreements > 0) return static_cast<int>(i);
  }
  return -1;
}

size_t ProfileBuilder::GpuSlot(const GpuRef& ref) {
  int found = FindGpu(ref);
  if (found < 0) {
    gpus_.emplace_back();
    found = static_cast<int>(gpus_.size()) - 1;
  }
  DeviceInfo& d = gpus_[static_cast<size_t>(found)].info;
  if (d.index < 0) d.index = ref.index;
  FillIfEmpty(d.uuid, ref.uuid);
  if (!ref.pci_bus_id.empty()) FillIfEmpty(d.pci_bus_id, NormalizePciBusId(ref.pci_bus_id));
  FillIfEmpty(d.name, ref.name);
  d.vendor = Vendor::kNvidia;
  return static_cast<size_t>(found);
}

DeviceInfo& ProfileBuilder::Device(const GpuRef& ref) { return gpus_[GpuSlot(ref)].info; }

void ProfileBuilder::SetReportPosition(const GpuRef& ref, int32_t position) {
  gpus_[GpuSlot(ref)].report_position = position;
}

MigInstance& ProfileBuilder::Mig(const GpuRef& ref, int32_t mig_index) { return gpus_[GpuSlot(ref)].migs[mig_index]; }

SeriesEntity ProfileBuilder::GpuEntity(const GpuRef& ref) const {
  SeriesEntity entity;
  entity.gpu_index = ref.index;
  entity.gpu_uuid = ref.uuid;
  entity.gpu_name = ref.name;
  if (!ref.pci_bus_id.empty()) entity.pci_bus_id = NormalizePciBusId(ref.pci_bus_id);
  if (!phase_.empty()) entity.labels["phase"] = phase_;
  return entity;
}

std::string ProfileBuilder::SeriesKey(Metric metric, std::string_view source_name, const SeriesEntity& e) {
  std::string key = std::to_string(static_cast<int>(metric));
  auto add = [&key](std::string_view part) {
    key += '\x1f';
    key += part;
  };
  add(source_name);
  add(std::to_string(e.gpu_index));
  add(e.gpu_uuid);
  add(e.gpu_name);
  add(e.pci_bus_id);
  add(std::to_string(e.gpu_instance_id));
  add(e.mig_profile);
  add(std::to_string(e.pid));
  add(e.process_name);
  add(e.hostname);
  for (const auto& [name, value] : e.labels) {
    add(name);
    add(value);
  }
  return key;
}

size_t ProfileBuilder::SeriesFor(Metric metric, std::string_view source_name, const SeriesEntity& entity) {
  std::string key = SeriesKey(metric, source_name, entity);
  auto [it, inserted] = series_index_.try_emplace(std::move(key), profile_->series.size());
  if (inserted) {
    Series series;
    series.metric = metric;
    series.source_name = std::string(source_name);
    series.entity = entity;
    profile_->series.push_back(std::move(series));
  }
  return it->second;
}

// A capture runs its commands one after another: --query-gpu rows carry a wall-clock
// timestamp, dmon/pmon without -o T only a sample number (n x interval from 0). Left as they
// are, one profile holds points at 1.78e18 ns and at 0..4e9 ns: a 56-year axis and a
// 495,560-hour duration. Each clockless sample is placed on its phase's clock, starting at
// that phase's last timestamped sample (the commands of a phase ran after the query that
// printed it); a phase without one takes the capture's last timestamp. -o T rows (a time of
// day without a date) are placed on the day of that anchor. Without any wall clock in the
// file, every sample stays relative.
int64_t ProfileBuilder::AnchorRelativeSamples() {
  std::map<std::string, TimeNs> last_epoch_by_phase;
  std::optional<TimeNs> last_epoch;
  auto phase_of = [](const Series& s) {
    auto it = s.entity.labels.find("phase");
    return it == s.entity.labels.end() ? std::string() : it->second;
  };
  for (const Series& s : profile_->series) {
    for (const Sample& sample : s.samples) {
      if (TimeBaseOf(sample.time_ns) != TimeBase::kEpoch) continue;
      TimeNs& phase_last = last_epoch_by_phase[phase_of(s)];
      phase_last = std::max(phase_last, sample.time_ns);
      last_epoch = std::max(last_epoch.value_or(sample.time_ns), sample.time_ns);
    }
  }
  if (!last_epoch) return 0;
  constexpr TimeNs kDayNs = 86'400LL * 1'000'000'000LL;
  int64_t moved = 0;
  for (Series& s : profile_->series) {
    std::string phase = phase_of(s);
    auto found = last_epoch_by_phase.find(phase);
    TimeNs anchor = found == last_epoch_by_phase.end() ? *last_epoch : found->second;
    if (time_of_day_phases_.count(phase)) anchor -= anchor % kDayNs;
    for (Sample& sample : s.samples) {
      if (TimeBaseOf(sample.time_ns) == TimeBase::kEpoch) continue;
      sample.time_ns += anchor;
      ++moved;
    }
  }
  return moved;
}

void ProfileBuilder::Finish() {
  if (int64_t moved = AnchorRelativeSamples(); moved > 0) {
    Count("nvidia_smi_samples_anchored", moved);
    SetAttribute("time_base",
                 "epoch: samples without a timestamp (dmon/pmon without -o T, CSV without a timestamp column) "
                 "start at the last timestamped sample of their capture phase");
  }
  // -q prints no index; it lists GPUs in NVML index order, which is what the other commands
  // number them by. Only used when no command gave the index and it is still free.
  for (Gpu& gpu : gpus_) {
    if (gpu.info.index >= 0 || gpu.report_position < 0) continue;
    bool taken = std::any_of(gpus_.begin(), gpus_.end(),
                             [&](const Gpu& other) { return other.info.index == gpu.report_position; });
    if (!taken) gpu.info.index = gpu.report_position;
  }
  // dmon and pmon name a GPU by index only; one that no other command described is
  // still a GPU the file saw.
  for (const Series& series : profile_->series) {
    const SeriesEntity& e = series.entity;
    if (e.gpu_index >= 0 && FindGpu(GpuRef{e.gpu_index, e.gpu_uuid, e.pci_bus_id, e.gpu_name}) < 0) {
      Device(GpuRef{e.gpu_index, e.gpu_uuid, e.pci_bus_id, e.gpu_name});
    }
  }
  for (Gpu& gpu : gpus_) {
    gpu.info.mig_instances.clear();
    for (const auto& [index, mig] : gpu.migs) gpu.info.mig_instances.push_back(mig);
  }
  for (Series& series : profile_->series) {
    SeriesEntity& e = series.entity;
    int found = FindGpu(GpuRef{e.gpu_index, e.gpu_uuid, e.pci_bus_id, e.gpu_name});
    if (found >= 0) {
      const Gpu& gpu = gpus_[static_cast<size_t>(found)];
      if (e.gpu_index < 0) e.gpu_index = gpu.info.index;
      FillIfEmpty(e.gpu_uuid, gpu.info.uuid);
      FillIfEmpty(e.gpu_name, gpu.info.name);
      FillIfEmpty(e.pci_bus_id, gpu.info.pci_bus_id);
      if (e.gpu_instance_id >= 0 && e.mig_profile.empty()) {
        for (const auto& [index, mig] : gpu.migs) {
          if (mig.gpu_instance_id == e.gpu_instance_id && !mig.profile.empty()) {
            e.mig_profile = GpuInstanceProfile(mig.profile);
            break;
          }
        }
      }
    }
    std::stable_sort(series.samples.begin(), series.samples.end(),
                     [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; });
  }
  profile_->devices.clear();
  for (Gpu& gpu : gpus_) profile_->devices.push_back(std::move(gpu.info));
  gpus_.clear();
}

}  // namespace kraken::nvidia_smi
