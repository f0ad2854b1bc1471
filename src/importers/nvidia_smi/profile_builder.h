// Collects what the section parsers read from one nvidia-smi file into one Profile:
// devices merged across commands (-L, -q, --query-gpu, dmon name the same GPU differently),
// series keyed by (metric, field, entity), and named counters.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/profile.h"

namespace kraken::nvidia_smi {

// How a command names a GPU. -L gives index + UUID, -q gives PCI bus id + UUID,
// --query-gpu any of them, dmon/pmon only the index. Empty / -1 = not given.
struct GpuRef {
  int32_t index = -1;
  std::string uuid;
  std::string pci_bus_id;
  std::string name;

  // Whether the ref names one GPU; a name alone does not (many GPUs share it).
  bool identified() const { return index >= 0 || !uuid.empty() || !pci_bus_id.empty(); }
};

class ProfileBuilder {
 public:
  explicit ProfileBuilder(Profile* profile) : profile_(profile) {}

  Profile& profile() { return *profile_; }

  // The phase of the capture section being read ("idle", "load"), kept in every series'
  // entity.labels["phase"] so the two phases stay apart; empty outside phased sections.
  void set_phase(std::string phase) { phase_ = std::move(phase); }
  const std::string& phase() const { return phase_; }

  // The device `ref` names (created when new); identity fields it lacks are filled in.
  // `ref` must be identified(). Returns a reference that stays valid until the next call.
  DeviceInfo& Device(const GpuRef& ref);
  // Remembers that -q listed this GPU as its `position`-th (NVML index order) GPU.
  void SetReportPosition(const GpuRef& ref, int32_t position);
  // A MIG device of the GPU, by nvidia-smi's MIG device index (-L "Device 0", -q "Index").
  MigInstance& Mig(const GpuRef& ref, int32_t mig_index);

  // An entity naming the GPU (and the current phase); callers add pid etc.
  SeriesEntity GpuEntity(const GpuRef& ref) const;
  // The index in profile().series of (metric, source_name, entity), created when new.
  size_t SeriesFor(Metric metric, std::string_view source_name, const SeriesEntity& entity);
  void AddSampleTo(size_t series, TimeNs time_ns, double value) {
    profile_->series[series].samples.push_back(Sample{time_ns, value});
  }
  // Appends one sample to the series of (metric, source_name, entity), creating it.
  void AddSample(Metric metric, std::string_view source_name, const SeriesEntity& entity, TimeNs time_ns,
                 double value) {
    AddSampleTo(SeriesFor(metric, source_name, entity), time_ns, value);
  }

  // Where the next section without timestamps (dmon without -o T) starts on its relative
  // clock, per phase and command, so two such sections of one phase do not overlap.
  TimeNs& RelativeClock(const std::string& key) { return relative_clocks_[key]; }

  // The current phase's dmon/pmon rows carry a time of day without a date (-o T).
  void NoteTimeOfDay() { time_of_day_phases_.insert(phase_); }

  void Count(const std::string& counter, int64_t n = 1) { profile_->import_counters[counter] += n; }
  void SetAttribute(const std::string& key, std::string value) {
    profile_->metadata.attributes[key] = std::move(value);
  }

  // Moves devices into the profile, fills series entities from the devices (dmon rows
  // carry only an index), names MIG profiles of per-instance series, sorts samples.
  void Finish();

 private:
  struct Gpu {
    DeviceInfo info;
    std::map<int32_t, MigInstance> migs;  // by MIG device index
    int32_t report_position = -1;
  };

  int FindGpu(const GpuRef& ref) const;
  // The slot of the GPU `ref` names, created when new, with its identity filled in.
  size_t GpuSlot(const GpuRef& ref);
  // Puts samples without a wall clock on the epoch clock of their phase's timestamped
  // samples (see the .cc); returns how many it moved.
  int64_t AnchorRelativeSamples();
  static std::string SeriesKey(Metric metric, std::string_view source_name, const SeriesEntity& entity);

  Profile* profile_;
  std::string phase_;
  std::vector<Gpu> gpus_;
  std::unordered_map<std::string, size_t> series_index_;
  std::map<std::string, TimeNs> relative_clocks_;
  std::set<std::string> time_of_day_phases_;
};

// PCI bus ids as nvidia-smi prints them ("00000000:00:09.0"); sysfs-style "0000:00:09.0"
// and lower case name the same device.
std::string NormalizePciBusId(std::string_view bus_id);

}  // namespace kraken::nvidia_smi
