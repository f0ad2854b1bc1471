#include "app/mig_apply_request.h"

#include <algorithm>
#include <memory>

#include "base/number_input.h"
#include "base/small_file.h"
#include "base/text.h"
#include "collectors/nvml/mig_apply.h"
#include "model/device_catalog.h"
#include "model/mig_catalog.h"

namespace kraken {
namespace {

size_t Indent(std::string_view line) { return line.find_first_not_of(' '); }

std::string Unquote(std::string_view s) {
  s = Trim(s);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return std::string(s);
}

Status ParseDevices(std::string_view value, MigPartedEntry* entry, const std::string& where) {
  if (value == "all") {
    entry->all_devices = true;
    return Status::Ok();
  }
  if (value.size() < 2 || value.front() != '[' || value.back() != ']')
    return InvalidInput(where + "devices must be all or a list such as [0,1]");
  for (std::string_view item : Split(value.substr(1, value.size() - 2), ',')) {
    auto index = ParseBoundedNumber(Trim(item), 0, 1023);
    if (!index || *index != static_cast<unsigned int>(*index))
      return InvalidInput(where + "device index '" + std::string(Trim(item)) + "' is not a whole number in [0, 1023]");
    entry->devices.push_back(static_cast<unsigned int>(*index));
  }
  return Status::Ok();
}

// The NVML profiles of a plan's profile name on this GPU model.
Result<nvml::MigInstanceRequest> RequestFor(const MigGeometry& geometry, const std::string& name) {
  const MigProfileSpec* spec = FindMigProfile(geometry, name);
  if (spec == nullptr)
    return InvalidInput("profile '" + name + "' is not a MIG profile of " + geometry.name);
  nvml::MigInstanceRequest r;
  r.profile = name;
  r.expected_id = static_cast<unsigned int>(spec->profile_id);
  switch (spec->compute_slices) {
    case 1: r.gi_profile = spec->memory_slices == 2 ? NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2
                                                    : NVML_GPU_INSTANCE_PROFILE_1_SLICE;
            r.ci_profile = NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE; break;
    case 2: r.gi_profile = NVML_GPU_INSTANCE_PROFILE_2_SLICE; r.ci_profile = NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE; break;
    case 3: r.gi_profile = NVML_GPU_INSTANCE_PROFILE_3_SLICE; r.ci_profile = NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE; break;
    case 4: r.gi_profile = NVML_GPU_INSTANCE_PROFILE_4_SLICE; r.ci_profile = NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE; break;
    case 7: r.gi_profile = NVML_GPU_INSTANCE_PROFILE_7_SLICE; r.ci_profile = NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE; break;
    default: return InvalidInput("profile '" + name + "' has " + std::to_string(spec->compute_slices) + " slices");
  }
  return r;
}

// The instances to create on GPU `index` (largest first), from the entry that names it.
Result<std::vector<nvml::MigInstanceRequest>> WantedOn(nvml::NvmlApi& nvml, unsigned int index,
                                                       const MigPartedEntry& entry) {
  std::vector<nvml::MigInstanceRequest> wanted;
  if (!entry.mig_enabled) return wanted;
  nvmlDevice_t device = nullptr;
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  if (nvml.DeviceGetHandleByIndex(index, &device) != NVML_SUCCESS ||
      nvml.DeviceGetName(device, name, sizeof name) != NVML_SUCCESS)
    return InvalidInput("GPU " + std::to_string(index) + ": its name could not be read through NVML");
  const DeviceSpec* spec = MatchDeviceSpec(name);
  const MigGeometry* geometry = spec != nullptr ? FindMigGeometry(spec->id) : nullptr;
  if (geometry == nullptr)
    return InvalidInput("GPU " + std::to_string(index) + " (" + name + ") has no MIG geometry in kraken");
  for (const auto& [profile, count] : entry.mig_devices) {
    KRAKEN_ASSIGN_OR_RETURN(nvml::MigInstanceRequest r, RequestFor(*geometry, profile));
    for (int i = 0; i < count; ++i) wanted.push_back(r);
  }
  std::stable_sort(wanted.begin(), wanted.end(), [&](const auto& a, const auto& b) {
    return FindMigProfile(*geometry, a.profile)->memory_slices > FindMigProfile(*geometry, b.profile)->memory_slices;
  });
  return wanted;
}

}  // namespace

Result<MigPartedFile> ParseMigPartedFile(const std::string& text, const std::string& origin) {
  MigPartedFile file;
  std::string config;
  MigPartedEntry* entry = nullptr;
  bool in_configs = false, in_devices = false;
  int number = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++number;
    std::string where = origin + ":" + std::to_string(number) + ": ";
    std::string_view line = raw;
    if (size_t hash = line.find('#'); hash != std::string_view::npos && line.find('"') > hash) line = line.substr(0, hash);
    if (Trim(line).empty()) continue;
    size_t indent = Indent(line);
    std::string_view body = Trim(line);
    bool item = StartsWith(body, "- ");
    if (item) body = Trim(body.substr(2));
    size_t colon = body.find(':');
    if (colon == std::string_view::npos) return InvalidInput(where + "expected 'key: value'");
    std::string key = Unquote(body.substr(0, colon));
    std::string value(Trim(body.substr(colon + 1)));
    if (indent == 0) {
      in_configs = key == "mig-configs";
      if (key == "version" && value != "v1") return InvalidInput(where + "version must be v1");
      continue;
    }
    if (!in_configs) return InvalidInput(where + "unexpected indented line outside mig-configs");
    if (indent == 2 && !item) {
      config = key;
      if (file.configs.count(config)) return InvalidInput(where + "configuration '" + config + "' appears twice");
      file.names.push_back(config);
      file.configs[config];
      entry = nullptr;
      continue;
    }
    if (config.empty()) return InvalidInput(where + "an entry before any configuration name");
    if (item) {
      file.configs[config].push_back(MigPartedEntry{});
      entry = &file.configs[config].back();
      entry->line = number;
      in_devices = false;
    }
    if (entry == nullptr) return InvalidInput(where + "expected '- devices: ...'");
    if (key == "devices") {
      KRAKEN_RETURN_IF_ERROR(ParseDevices(value, entry, where));
    } else if (key == "mig-enabled") {
      if (value != "true" && value != "false") return InvalidInput(where + "mig-enabled must be true or false");
      entry->mig_enabled = value == "true";
    } else if (key == "mig-devices") {
      in_devices = true;
      if (value == "{}") in_devices = false;
    } else if (in_devices) {
      auto count = ParseBoundedNumber(value, 0, 7);
      if (!count || *count != static_cast<int>(*count))
        return InvalidInput(where + "the count of '" + key + "' must be a whole number in [0, 7]");
      entry->mig_devices[key] = static_cast<int>(*count);
    } else {
      return InvalidInput(where + "unknown key '" + key + "'");
    }
  }
  if (file.names.empty()) return InvalidInput(origin + ": no configuration under mig-configs");
  return file;
}

Result<std::string> ApplyMigPlan(const MigApplySettings& settings) {
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(settings.plan, kMiB, "the --plan file"));
  KRAKEN_ASSIGN_OR_RETURN(MigPartedFile file, ParseMigPartedFile(text, settings.plan));
  std::string name = settings.config;
  if (name.empty()) {
    if (file.names.size() != 1)
      return InvalidInput(settings.plan + ": " + std::to_string(file.names.size()) +
                          " configurations; choose one with --config (the node's nvidia.com/mig.config)");
    name = file.names[0];
  }
  auto config = file.configs.find(name);
  if (config == file.configs.end()) return InvalidInput("--config '" + name + "' is not in " + settings.plan);
  KRAKEN_ASSIGN_OR_RETURN(auto library, nvml::NvmlLibrary::Load(settings.nvml_library));
  nvmlReturn_t rc = library->Init();
  if (rc != NVML_SUCCESS) return Unavailable("NVML did not start: " + library->InitDiagnostic());
  unsigned int count = 0;
  library->DeviceGetCount(&count);
  std::string out = std::string(settings.dry_run ? "Dry run: " : "") + "MIG layout '" + name + "' of " +
                    settings.plan + " on " + std::to_string(count) + " GPU(s)\n";
  Status status = Status::Ok();
  for (const MigPartedEntry& entry : config->second) {
    std::vector<unsigned int> devices = entry.devices;
    if (entry.all_devices)
      for (unsigned int i = 0; i < count; ++i) devices.push_back(i);
    for (unsigned int index : devices) {
      if (index >= count) status = InvalidInput(settings.plan + ":" + std::to_string(entry.line) + ": GPU " +
                                                std::to_string(index) + " does not exist (" + std::to_string(count) +
                                                " GPUs)");
      if (!status.ok()) break;
      auto wanted = WantedOn(*library, index, entry);
      if (!wanted.ok()) { status = wanted.status(); break; }
      auto steps = nvml::ApplyMigLayout(*library, index, *wanted, {settings.dry_run});
      if (!steps.ok()) { status = steps.status(); break; }
      for (const std::string& step : *steps) out += "  " + step + "\n";
    }
    if (!status.ok()) break;
  }
  library->Shutdown();
  if (!status.ok()) return status;
  return out;
}

}  // namespace kraken
