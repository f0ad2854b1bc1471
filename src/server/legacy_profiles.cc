#include "server/legacy_profiles.h"

#include <filesystem>
#include <mutex>

#include "analysis/arithmetic_intensity.h"
#include "base/json_writer.h"
#include "base/text_table.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"

namespace kraken::server {
namespace {

// The legacy service's predefined table: the five models it knew, with the kernel type and
// arithmetic intensity it gave each (its clients and their tests rely on these).
struct LegacyTableEntry {
  const char* id;
  const char* kernel_type;
  double arithmetic_intensity;
  const char* description;
  const char* orion_file;  // kraken's measurement of the model, under the data folder; null: none
  const char* measured_description;
};

constexpr LegacyTableEntry kLegacyTable[] = {
    {"resnet50", "COMPUTE_BOUND", 85.0, "ResNet-50, Conv2D-heavy CNN", "orion/resnet50_4_fwd.csv",
     "ResNet-50, batch 4, inference forward pass (Orion kernel list, V100)"},
    {"vgg16", "COMPUTE_BOUND", 90.0, "Deep CNN, heavy Conv2D", nullptr, nullptr},
    {"bert", "MIXED", 35.0, "BERT, Attention + GEMM", "orion/bert_2_fwd.csv",
     "BERT, batch 2, inference forward pass (Orion kernel list, V100)"},
    {"gpt2", "MIXED", 28.0, "GPT, Attention + LayerNorm", nullptr, nullptr},
    {"mobilenet", "COMPUTE_BOUND", 65.0, "MobileNet, depthwise separable convolutions", "orion/mobilenetv2_4_fwd.csv",
     "MobileNetV2, batch 4, inference forward pass (Orion kernel list, V100)"},
};

constexpr const char* kLegacyTableSource =
    "legacy table: the pooling-workload-profiler's predefined profile (kernel_type and arithmetic_intensity as it "
    "defined them, ratios from kraken's class template); not measured by kraken";

LegacyProfile TableProfile(const LegacyTableEntry& entry) {
  LegacyProfile profile;
  profile.kernel_type = entry.kernel_type;
  profile.arithmetic_intensity = entry.arithmetic_intensity;
  SetClassRatios(&profile);
  profile.description = entry.description;
  profile.source = "default";
  profile.data_source = kLegacyTableSource;
  return profile;
}

// kraken's measurement of a table entry: Orion's kernel list; AI from its counters when it
// has any (Orion's lists have none), else the table's. Absent when the file is unreadable.
std::optional<LegacyProfile> MeasuredProfile(const LegacyTableEntry& entry, const std::string& data_dir,
                                             std::string* why_not) {
  std::string path = (std::filesystem::path(data_dir) / entry.orion_file).string();
  auto imported = ImportFile(BuiltinImporters(), path);
  if (!imported.ok() || imported->size() != 1) {
    *why_not = std::string(entry.orion_file) + " could not be read (" +
               (imported.ok() ? "no single profile" : imported.status().message()) + ")";
    return std::nullopt;
  }
  auto list = std::make_shared<const Profile>(std::move(imported->front()));
  LegacyProfile profile = LegacyProfileFromOrion(list);
  profile.input_name = path;
  profile.description = entry.measured_description;
  std::optional<WorkloadIntensity> intensity = MeasureWorkloadIntensity(*list);
  profile.arithmetic_intensity = intensity ? intensity->arithmetic_intensity() : entry.arithmetic_intensity;
  profile.data_source = std::string(entry.orion_file) + " (ratios and kernel_type: Orion's kernel labels); " +
                        (intensity ? "arithmetic_intensity measured from its FLOP and DRAM byte counts"
                                   : "arithmetic_intensity: the legacy table's " +
                                         FormatGeneral(entry.arithmetic_intensity) +
                                         " (the list has no FLOP or byte counts)");
  return profile;
}

}  // namespace

std::string ClassifyArithmeticIntensity(double ai) {
  if (ai > 50) return "COMPUTE_BOUND";
  if (ai < 10) return "MEMORY_BOUND";
  return "MIXED";
}

void SetClassRatios(LegacyProfile* p) {
  // Shares of kernel time per class (compute, memory, mixed). The class itself holds most
  // of the time and the rest is split between the other two; a MIXED workload has no
  // majority. UNKNOWN gets the legacy service's registration default.
  struct Ratios {
    double compute, memory, mixed;
  };
  Ratios r = p->kernel_type == "COMPUTE_BOUND"  ? Ratios{0.75, 0.10, 0.15}
             : p->kernel_type == "MEMORY_BOUND" ? Ratios{0.10, 0.75, 0.15}
             : p->kernel_type == "MIXED"        ? Ratios{0.40, 0.30, 0.30}
                                                : Ratios{0.33, 0.33, 0.34};
  p->compute_ratio = r.compute;
  p->memory_ratio = r.memory;
  p->mixed_ratio = r.mixed;
}

std::string LegacyProfileJson(const LegacyProfile& p) {
  JsonWriter json(false);
  json.BeginObject().Field("kernel_type", p.kernel_type);
  // Always a number: the legacy clients do float(profile["arithmetic_intensity"]).
  json.Field("arithmetic_intensity", p.arithmetic_intensity.value_or(0));
  json.Field("compute_ratio", p.compute_ratio).Field("memory_ratio", p.memory_ratio);
  json.Field("mixed_ratio", p.mixed_ratio).Field("description", p.description).Field("source", p.source);
  json.Field("measured", p.measured).Field("data_source", p.data_source).Key("profiled_at");
  if (p.profiled_at.empty()) json.Null();
  else json.String(p.profiled_at);
  json.EndObject();
  return json.Take();
}

LegacyWorkloadRecord ToWorkloadRecord(const std::string& id, const LegacyProfile& p) {
  LegacyWorkloadRecord r;
  r.workload_id = id;
  r.kernel_type = p.kernel_type;
  r.arithmetic_intensity = p.arithmetic_intensity;
  r.compute_ratio = p.compute_ratio;
  r.memory_ratio = p.memory_ratio;
  r.mixed_ratio = p.mixed_ratio;
  r.description = p.description;
  r.source = p.source;
  r.measured = p.measured;
  r.data_source = p.data_source;
  r.profiled_at = p.profiled_at;
  r.profile_id = p.stored_profile_id;
  return r;
}

LegacyProfile FromWorkloadRecord(const LegacyWorkloadRecord& r) {
  LegacyProfile p;
  p.kernel_type = r.kernel_type;
  p.arithmetic_intensity = r.arithmetic_intensity;
  p.compute_ratio = r.compute_ratio;
  p.memory_ratio = r.memory_ratio;
  p.mixed_ratio = r.mixed_ratio;
  p.description = r.description;
  p.source = r.source;
  p.measured = r.measured;
  p.data_source = r.data_source;
  p.profiled_at = r.profiled_at;
  p.stored_profile_id = r.profile_id;
  return p;
}

std::unique_ptr<LegacyProfiles> LegacyProfiles::LoadPredefined(const std::string& data_dir,
                                                               const LegacyConfig& config) {
  auto registry = std::make_unique<LegacyProfiles>();
  registry->config_ = config;
  for (const LegacyTableEntry& entry : kLegacyTable) {
    LegacyProfile profile = TableProfile(entry);
    std::string why_not = "kraken has no measurement of this model";
    std::optional<LegacyProfile> measured;
    if (entry.orion_file != nullptr) measured = MeasuredProfile(entry, data_dir, &why_not);
    if (measured) registry->measured_[entry.id] = *measured;
    if (config.set == LegacyProfileSet::kMeasured) {
      if (measured) profile = *measured;
      else profile.data_source = std::string(kLegacyTableSource) + " (--legacy-profiles measured: " + why_not + ")";
    }
    registry->predefined_[entry.id] = profile;
    registry->Put(entry.id, profile);
  }
  return registry;
}

Status LegacyProfiles::LoadRegistered(ProfileStore& store) {
  KRAKEN_ASSIGN_OR_RETURN(std::vector<LegacyWorkloadRecord> records, store.ListLegacyWorkloads());
  for (const LegacyWorkloadRecord& record : records) {
    LegacyProfile profile = FromWorkloadRecord(record);
    if (record.profile_id) {
      // The kernel list feeds the measured co-location model; the figures stand without it
      // (retention may have deleted the profile since).
      auto stored = store.LoadProfile(*record.profile_id);
      if (stored.ok()) {
        profile.profile = std::make_shared<const Profile>(std::move(*stored));
        profile.input_name = "profile " + std::to_string(*record.profile_id);
      }
    }
    Put(record.workload_id, std::move(profile));
  }
  return Status::Ok();
}

std::optional<LegacyProfile> LegacyProfiles::Find(const std::string& id) const {
  std::shared_lock lock(mutex_);
  auto it = profiles_.find(id);
  if (it == profiles_.end()) return std::nullopt;
  return it->second;
}

std::string LegacyProfiles::FindJson(const std::string& id) const {
  std::shared_lock lock(mutex_);
  auto it = json_.find(id);
  return it == json_.end() ? std::string() : it->second;
}

std::string LegacyProfiles::AllJson() const {
  std::shared_lock lock(mutex_);
  std::string out = "{";
  for (const auto& [id, json] : json_) {
    if (out.size() > 1) out += ',';
    AppendJsonString(out, id);
    out += ':';
    out += json;
  }
  return out + "}";
}

size_t LegacyProfiles::size() const {
  std::shared_lock lock(mutex_);
  return profiles_.size();
}

std::optional<LegacyProfile> LegacyProfiles::Predefined(const std::string& model) const {
  auto it = predefined_.find(model);
  if (it == predefined_.end()) return std::nullopt;
  return it->second;
}

std::optional<LegacyProfile> LegacyProfiles::MeasuredReference(const std::string& model) const {
  auto it = measured_.find(model);
  if (it == measured_.end()) return std::nullopt;
  return it->second;
}

void LegacyProfiles::Put(const std::string& id, LegacyProfile profile) {
  std::string json = LegacyProfileJson(profile);
  {
    std::unique_lock lock(mutex_);
    profiles_[id] = std::move(profile);
    json_[id] = std::move(json);
  }
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_.clear();
  ++generation_;
}

LegacyColocation LegacyProfiles::Colocation(const std::string& a, const std::string& b) const {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find({a, b});
    if (it != cache_.end()) return it->second;
    generation = generation_;
  }
  // An id nobody registered is an UNKNOWN workload, as in the legacy service.
  LegacyProfile unknown;
  std::optional<LegacyProfile> pa = Find(a);
  std::optional<LegacyProfile> pb = Find(b);
  LegacyColocation result = ColocateLegacyProfiles(pa ? *pa : unknown, pb ? *pb : unknown, config_);
  for (const auto& [id, found] : {std::pair{&a, pa.has_value()}, std::pair{&b, pb.has_value()}})
    if (!found) result.notes.push_back("no profile '" + *id + "': UNKNOWN");
  std::lock_guard<std::mutex> lock(cache_mutex_);
  // Unknown ids are not cached: any string is one, and the cache must stay bounded.
  if (generation == generation_ && pa && pb) cache_[{a, b}] = result;
  return result;
}

}  // namespace kraken::server
