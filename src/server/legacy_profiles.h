// The profiles of the legacy scheduler API (GET /profile/{id}, /register, /colocation):
// workload ids with a kernel type and the shares of kernel time per bound class. The
// predefined ones are derived at startup from real kernel lists (Orion's, on a V100) where
// the project has them; the others say they are not measured. Shared by the request
// threads: reads take a shared lock, writes an exclusive one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace kraken::server {

struct LegacyProfile {
  std::string kernel_type = "UNKNOWN";  // COMPUTE_BOUND, MEMORY_BOUND, MIXED, UNKNOWN
  std::optional<double> arithmetic_intensity;  // FLOP/byte, when known
  double compute_ratio = 0;
  double memory_ratio = 0;
  double mixed_ratio = 0;
  std::string description;
  std::string source = "unknown";  // measured, default, manual, unknown
  bool measured = false;
  std::string data_source;   // the file it was derived from, or why it is not measured
  std::string profiled_at;   // "YYYY-MM-DD HH:MM:SS" UTC; empty: null
  // The imported kernel list of a measured profile (input of the co-location model).
  std::shared_ptr<const Profile> profile;
  std::string input_name;  // the file as the CLI would name it ("orion/resnet50_4_fwd.csv")
};

std::string LegacyProfileJson(const LegacyProfile& profile);

// Derives the shares from Orion's per-kernel labels (1 compute, 0 memory, -1 neither)
// weighted by kernel duration; the type is the class holding at least half the time.
LegacyProfile LegacyProfileFromOrion(std::shared_ptr<const Profile> profile);

// COMPUTE_BOUND (AI > 50), MEMORY_BOUND (AI < 10), else MIXED: the legacy service's rule.
std::string ClassifyArithmeticIntensity(double arithmetic_intensity);

struct LegacyColocation {
  std::string type_a, type_b;
  double score = 0;
  std::string recommendation;  // good (> 0.6), moderate (> 0.4), poor
  int sm_a = 0, sm_b = 0;
  std::string model;   // measured or class-table
  std::string device;  // catalog id
  std::vector<std::string> notes;
};

class LegacyProfiles {
 public:
  // Loads the predefined profiles from `data_dir` (the shared data folder).
  static std::unique_ptr<LegacyProfiles> LoadPredefined(const std::string& data_dir);

  std::optional<LegacyProfile> Find(const std::string& id) const;
  std::string FindJson(const std::string& id) const;  // "" when unknown
  std::string AllJson() const;                        // {"id": profile, ...}
  size_t size() const;
  // A predefined profile by model name (POST /profile), if there is one.
  std::optional<LegacyProfile> Predefined(const std::string& model) const;

  void Put(const std::string& id, LegacyProfile profile);

  // kraken's co-location model for two known ids (NotFound otherwise); cached per pair
  // until a profile changes.
  Result<LegacyColocation> Colocation(const std::string& a, const std::string& b) const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, LegacyProfile> profiles_;
  std::map<std::string, std::string> json_;  // rendered once per change
  std::map<std::string, LegacyProfile> predefined_;
  mutable std::mutex cache_mutex_;
  mutable std::map<std::pair<std::string, std::string>, LegacyColocation> cache_;
  // Bumped by every Put: a result computed from older profiles is not cached.
  uint64_t generation_ = 0;
};

}  // namespace kraken::server
