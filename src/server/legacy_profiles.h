// The profiles of the legacy scheduler API on :7070 (GET /profile/{id}, /register,
// /colocation): workload ids with a kernel type, an arithmetic intensity and the shares of
// kernel time per bound class. By default the predefined ids serve the legacy service's
// own table; `--legacy-profiles measured` serves kraken's measurements (Orion's kernel
// lists) instead. A registered id serves what was registered, and is kept in the store.
// Shared by the request threads: reads take a shared lock, writes an exclusive one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/device.h"
#include "model/profile.h"
#include "store/store.h"

namespace kraken::server {

struct LegacyProfile {
  std::string kernel_type = "UNKNOWN";  // COMPUTE_BOUND, MEMORY_BOUND, MIXED, UNKNOWN
  // FLOP/byte when known. The legacy endpoints always answer a number (0 when unknown,
  // data_source says so): their clients convert it with float().
  std::optional<double> arithmetic_intensity;
  double compute_ratio = 0;
  double memory_ratio = 0;
  double mixed_ratio = 0;
  std::string description;
  std::string source = "unknown";  // measured, default, manual, unknown
  bool measured = false;
  std::string data_source;   // where the figures come from, AI included
  std::string profiled_at;   // "YYYY-MM-DD HH:MM:SS" UTC; empty: null
  // The kernel list of a measured profile (input of the co-location model) and its name
  // as the CLI would give it ("…/orion/resnet50_4_fwd.csv").
  std::shared_ptr<const Profile> profile;
  std::string input_name;
  std::optional<int64_t> stored_profile_id;  // the store's profile a measured one came from
};

std::string LegacyProfileJson(const LegacyProfile& profile);

// COMPUTE_BOUND (AI > 50), MEMORY_BOUND (AI < 10), else MIXED: the legacy service's rule.
std::string ClassifyArithmeticIntensity(double arithmetic_intensity);

// The ratios kraken gives a legacy table entry, which names only a kernel type and an AI
// (docs/api-legacy.md, "The legacy table"): the shares of kernel time a workload of that class has.
void SetClassRatios(LegacyProfile* profile);

// Measured profiles (legacy_measurement.cc). From Orion's per-kernel labels (1 compute,
// 0 memory, -1 neither) weighted by kernel duration; the type is the class holding at least
// half the time, else MIXED.
LegacyProfile LegacyProfileFromOrion(std::shared_ptr<const Profile> profile);
// From any stored profile: Orion labels when it has them, else kraken's kernel
// classification; AI from its FLOP and DRAM byte counters when it has them.
LegacyProfile LegacyProfileFromStored(std::shared_ptr<const Profile> profile, int64_t stored_id);

struct LegacyColocation {
  std::string type_a, type_b;
  double score = 0;
  std::string recommendation;  // good (> 0.6), moderate (> 0.4), poor
  int sm_a = 0, sm_b = 0;
  int sm_total = 0;
  std::string model;   // measured, class-table or unknown
  std::string device;  // catalog id the measured model ran on, or --device; "" none
  std::vector<std::string> notes;
};

enum class LegacyProfileSet { kLegacyTable, kMeasured };

struct LegacyConfig {
  LegacyProfileSet set = LegacyProfileSet::kLegacyTable;
  // SMs sm_partition divides: the 84 of the sm_86 GPU the legacy service was built for,
  // --legacy-sms N, or the SMs of --device.
  int sm_total = 84;
  const DeviceSpec* device = nullptr;  // --device: also the measured model's target
};

// The model of /colocation for two profiles (legacy_colocation.cc).
LegacyColocation ColocateLegacyProfiles(const LegacyProfile& a, const LegacyProfile& b, const LegacyConfig& config);

class LegacyProfiles {
 public:
  // The predefined profiles of `config.set`; the Orion lists are read from `data_dir`.
  static std::unique_ptr<LegacyProfiles> LoadPredefined(const std::string& data_dir, const LegacyConfig& config);
  // Adds the workloads registered in earlier runs (their kernel lists reloaded from the
  // store when they were derived from a stored profile).
  Status LoadRegistered(ProfileStore& store);

  const LegacyConfig& config() const { return config_; }
  std::optional<LegacyProfile> Find(const std::string& id) const;
  std::string FindJson(const std::string& id) const;  // "" when unknown
  std::string AllJson() const;                        // {"id": profile, ...}
  size_t size() const;
  // A predefined profile by model name (POST /profile), if there is one.
  std::optional<LegacyProfile> Predefined(const std::string& model) const;
  // kraken's measured reference of a model (resnet50, mobilenet, bert) whatever the
  // profile set: /api/v1/colocate names them.
  std::optional<LegacyProfile> MeasuredReference(const std::string& model) const;

  void Put(const std::string& id, LegacyProfile profile);

  // /colocation: unknown ids are UNKNOWN workloads, as the legacy service answered.
  // Cached per pair until a profile changes.
  LegacyColocation Colocation(const std::string& a, const std::string& b) const;

 private:
  LegacyConfig config_;
  mutable std::shared_mutex mutex_;
  std::map<std::string, LegacyProfile> profiles_;
  std::map<std::string, std::string> json_;  // rendered once per change
  // Written only while loading.
  std::map<std::string, LegacyProfile> predefined_;
  std::map<std::string, LegacyProfile> measured_;
  mutable std::mutex cache_mutex_;
  mutable std::map<std::pair<std::string, std::string>, LegacyColocation> cache_;
  // Bumped by every Put: a result computed from older profiles is not cached.
  uint64_t generation_ = 0;
};

// The store's row of a registered profile and back.
LegacyWorkloadRecord ToWorkloadRecord(const std::string& id, const LegacyProfile& profile);
LegacyProfile FromWorkloadRecord(const LegacyWorkloadRecord& record);

}  // namespace kraken::server
