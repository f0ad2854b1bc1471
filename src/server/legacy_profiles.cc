#include "server/legacy_profiles.h"

#include <cmath>
#include <filesystem>
#include <mutex>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/profile_demands.h"
#include "app/colocate_request.h"
#include "base/json_writer.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken::server {
namespace {

// The five models the legacy service predefined. Three have real kernel lists in the
// shared data (Orion's inference passes on a V100); VGG-16 and GPT-2 have none, so they
// keep the legacy service's hand-written values and say that they are not measured.
struct PredefinedSpec {
  const char* id;
  const char* file;  // under the data folder; null: not measured
  const char* description;
  const char* kernel_type;  // unmeasured only
  double arithmetic_intensity, compute_ratio, memory_ratio, mixed_ratio;
};

constexpr PredefinedSpec kPredefined[] = {
    {"resnet50", "orion/resnet50_4_fwd.csv", "ResNet-50, batch 4, inference forward pass (Orion kernel list, V100)",
     nullptr, 0, 0, 0, 0},
    {"mobilenet", "orion/mobilenetv2_4_fwd.csv",
     "MobileNetV2, batch 4, inference forward pass (Orion kernel list, V100)", nullptr, 0, 0, 0, 0},
    {"bert", "orion/bert_2_fwd.csv", "BERT, batch 2, inference forward pass (Orion kernel list, V100)", nullptr, 0, 0,
     0, 0},
    {"vgg16", nullptr, "Deep CNN, heavy Conv2D", "COMPUTE_BOUND", 90.0, 0.75, 0.10, 0.15},
    {"gpt2", nullptr, "GPT, Attention + LayerNorm", "MIXED", 28.0, 0.40, 0.30, 0.30},
};

constexpr const char* kNotMeasured =
    "not measured: the legacy pooling-workload-profiler's hand-written table (kraken has no trace of this model)";

// The class-pair table's names for the legacy kernel types.
std::string WorkClassOf(const std::string& kernel_type) {
  if (kernel_type == "COMPUTE_BOUND") return "compute";
  if (kernel_type == "MEMORY_BOUND") return "memory";
  if (kernel_type == "MIXED") return "mixed";
  return "unknown";
}

std::string Recommendation(double score) {
  if (score > 0.6) return "good";
  if (score > 0.4) return "moderate";
  return "poor";
}

// Both measured: the demand-vector model of docs/colocation.md, as `kraken colocate` runs it.
std::optional<LegacyColocation> MeasuredColocation(const LegacyProfile& a, const LegacyProfile& b) {
  ProfileDemands demands;
  if (!AppendProfileDemands(*a.profile, a.input_name, nullptr, &demands).ok() ||
      !AppendProfileDemands(*b.profile, b.input_name, nullptr, &demands).ok() || demands.demands.size() != 2)
    return std::nullopt;
  FinishProfileDemands(&demands);
  // `kraken colocate A B` with its defaults (app/colocate_request.h), in the legacy shape.
  ColocateSettings settings;
  auto setup = MakeColocateSetup(settings);
  if (!setup.ok()) return std::nullopt;
  auto inputs = PrepareColocation(demands, settings, *setup);
  if (!inputs.ok()) return std::nullopt;
  ColocationReport report = PredictColocation(inputs->workloads, inputs->options);
  if (report.pairs.empty()) return std::nullopt;
  LegacyColocation out;
  out.model = "measured";
  out.notes = demands.notes;
  out.notes.insert(out.notes.end(), inputs->device_notes.begin(), inputs->device_notes.end());
  const DeviceSpec* device = inputs->target;
  const PairScore& pair = report.pairs.front();
  out.score = pair.score;
  out.notes.push_back(pair.explanation);
  if (device != nullptr) {
    out.device = device->id;
    if (pair.sm_split.size() == 2) {
      out.sm_a = static_cast<int>(std::lround(pair.sm_split[0] * device->sm_count));
      out.sm_b = static_cast<int>(std::lround(pair.sm_split[1] * device->sm_count));
    } else {
      out.sm_a = device->sm_count / 2;
      out.sm_b = device->sm_count - out.sm_a;
      out.notes.push_back("no MPS split predicted: equal shares");
    }
  }
  return out;
}

LegacyColocation ClassTableColocation(const LegacyProfile& a, const LegacyProfile& b) {
  LegacyColocation out;
  out.model = "class-table";
  out.score = ClassTableScore(WorkClassOf(a.kernel_type), WorkClassOf(b.kernel_type));
  out.notes.push_back("class-pair table (docs/colocation.md): at least one workload has no measured kernel list; "
                      "the score depends only on the two kernel types and no slowdown is predicted");
  if (out.score == 0) out.notes.push_back("a kernel type is UNKNOWN: score 0 (no evidence that sharing is safe)");
  // The shares of the measured reference lists: Orion's V100.
  const DeviceSpec* device = FindDeviceSpec("v100-pcie");
  if (device != nullptr) {
    out.device = device->id;
    out.sm_a = device->sm_count / 2;
    out.sm_b = device->sm_count - out.sm_a;
    out.notes.push_back("sm_partition: equal shares of the " + device->id + "'s " +
                        std::to_string(device->sm_count) + " SMs (no split is predicted without measurements)");
  }
  return out;
}

}  // namespace

std::string ClassifyArithmeticIntensity(double ai) {
  if (ai > 50) return "COMPUTE_BOUND";
  if (ai < 10) return "MEMORY_BOUND";
  return "MIXED";
}

std::string LegacyProfileJson(const LegacyProfile& p) {
  JsonWriter json(false);
  json.BeginObject().Field("kernel_type", p.kernel_type).Key("arithmetic_intensity");
  if (p.arithmetic_intensity) json.Number(*p.arithmetic_intensity);
  else json.Null();
  json.Field("compute_ratio", p.compute_ratio).Field("memory_ratio", p.memory_ratio);
  json.Field("mixed_ratio", p.mixed_ratio).Field("description", p.description).Field("source", p.source);
  json.Field("measured", p.measured).Field("data_source", p.data_source).Key("profiled_at");
  if (p.profiled_at.empty()) json.Null();
  else json.String(p.profiled_at);
  json.EndObject();
  return json.Take();
}

LegacyProfile LegacyProfileFromOrion(std::shared_ptr<const Profile> profile) {
  LegacyProfile out;
  double compute = 0, memory = 0, neither = 0;
  const Profile& p = *profile;
  // The importer writes one label per kernel, in the same order.
  for (size_t i = 0; i < p.kernels.size() && i < p.kernel_labels.size(); ++i) {
    double duration = static_cast<double>(std::max<int64_t>(0, p.kernels[i].duration_ns));
    const std::string& label = p.kernel_labels[i].label;
    if (label == "1") compute += duration;
    else if (label == "0") memory += duration;
    else neither += duration;
  }
  double total = compute + memory + neither;
  if (total > 0) {
    out.compute_ratio = compute / total;
    out.memory_ratio = memory / total;
    out.mixed_ratio = neither / total;
    out.kernel_type = out.compute_ratio >= 0.5 ? "COMPUTE_BOUND" : out.memory_ratio >= 0.5 ? "MEMORY_BOUND" : "MIXED";
  }
  out.source = "measured";
  out.measured = total > 0;
  out.profile = std::move(profile);
  return out;
}

std::unique_ptr<LegacyProfiles> LegacyProfiles::LoadPredefined(const std::string& data_dir) {
  auto registry = std::make_unique<LegacyProfiles>();
  for (const PredefinedSpec& spec : kPredefined) {
    LegacyProfile profile;
    if (spec.file == nullptr) {
      profile.kernel_type = spec.kernel_type;
      profile.arithmetic_intensity = spec.arithmetic_intensity;
      profile.compute_ratio = spec.compute_ratio;
      profile.memory_ratio = spec.memory_ratio;
      profile.mixed_ratio = spec.mixed_ratio;
      profile.source = "default";
      profile.data_source = kNotMeasured;
    } else {
      std::string path = (std::filesystem::path(data_dir) / spec.file).string();
      auto imported = ImportFile(BuiltinImporters(), path);
      if (imported.ok() && imported->size() == 1) {
        profile = LegacyProfileFromOrion(std::make_shared<const Profile>(std::move(imported->front())));
        profile.data_source = spec.file;
        profile.input_name = path;
      } else {
        profile.data_source = std::string("not measured: ") + spec.file + " could not be read (" +
                              (imported.ok() ? "no single profile" : imported.status().message()) + ")";
      }
    }
    profile.description = spec.description;
    registry->predefined_[spec.id] = profile;
    registry->Put(spec.id, profile);
  }
  return registry;
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
  auto it = predefined_.find(model);  // written only while loading
  if (it == predefined_.end()) return std::nullopt;
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

Result<LegacyColocation> LegacyProfiles::Colocation(const std::string& a, const std::string& b) const {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find({a, b});
    if (it != cache_.end()) return it->second;
    generation = generation_;
  }
  std::optional<LegacyProfile> pa = Find(a);
  if (!pa) return NotFound("Profile not found: " + a);
  std::optional<LegacyProfile> pb = Find(b);
  if (!pb) return NotFound("Profile not found: " + b);
  std::optional<LegacyColocation> result;
  if (pa->profile != nullptr && pb->profile != nullptr) result = MeasuredColocation(*pa, *pb);
  if (!result) result = ClassTableColocation(*pa, *pb);
  result->type_a = pa->kernel_type;
  result->type_b = pb->kernel_type;
  result->recommendation = Recommendation(result->score);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (generation == generation_) cache_[{a, b}] = *result;
  return *result;
}

}  // namespace kraken::server
