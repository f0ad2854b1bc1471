#include "importers/nvidia_smi/gpu_list.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "base/text.h"

namespace kraken::nvidia_smi {
namespace {

struct ListedGpu {
  int32_t index = -1;
  std::string name;
  std::string uuid;
};

struct ListedMig {
  int32_t index = -1;
  std::string profile;
};

std::optional<ListedGpu> ParseGpuLine(std::string_view line) {
  line = Trim(line);
  if (!StartsWith(line, "GPU ")) return std::nullopt;
  size_t colon = line.find(": ");
  size_t uuid_at = line.rfind(" (UUID: ");
  if (colon == std::string_view::npos || uuid_at == std::string_view::npos || uuid_at < colon || line.back() != ')') {
    return std::nullopt;
  }
  auto index = ParseInt64(line.substr(4, colon - 4));
  if (!index) return std::nullopt;
  ListedGpu gpu;
  gpu.index = static_cast<int32_t>(*index);
  gpu.name = std::string(Trim(line.substr(colon + 2, uuid_at - colon - 2)));
  size_t uuid_start = uuid_at + 8;
  gpu.uuid = std::string(Trim(line.substr(uuid_start, line.size() - 1 - uuid_start)));
  return gpu;
}

// "MIG 3g.40gb     Device  0: (UUID: MIG-00000000-...)"
std::optional<ListedMig> ParseMigLine(std::string_view line) {
  std::vector<std::string_view> words = SplitWhitespace(Trim(line));
  if (words.size() < 4 || words[0] != "MIG" || words[2] != "Device" || !EndsWith(words[3], ":")) return std::nullopt;
  auto index = ParseInt64(words[3].substr(0, words[3].size() - 1));
  if (!index) return std::nullopt;
  return ListedMig{static_cast<int32_t>(*index), std::string(words[1])};
}

}  // namespace

bool IsGpuListLine(std::string_view line) { return ParseGpuLine(line).has_value(); }

bool ParseGpuList(const Section& section, ProfileBuilder& builder) {
  std::vector<std::string_view> lines;
  for (std::string_view line : Lines(section.body)) {
    if (Trim(line).empty() || IsBannerRule(line)) continue;
    if (!ParseGpuLine(line) && !ParseMigLine(line)) return false;
    lines.push_back(line);
  }
  if (lines.empty() || !ParseGpuLine(lines.front())) return false;
  GpuRef current;
  for (std::string_view line : lines) {
    if (auto gpu = ParseGpuLine(line)) {
      current = GpuRef{gpu->index, gpu->uuid, "", gpu->name};
      builder.Device(current);
    } else if (auto mig = ParseMigLine(line)) {
      builder.Mig(current, mig->index).profile = mig->profile;
    }
  }
  return true;
}

bool ParseVersion(const Section& section, ProfileBuilder& builder) {
  std::vector<std::string_view> lines;
  for (std::string_view line : Lines(section.body))
    if (!Trim(line).empty() && !IsBannerRule(line)) lines.push_back(line);
  if (lines.empty() || !StartsWith(Trim(lines.front()), "NVIDIA-SMI version")) return false;
  for (std::string_view line : lines) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = ToLower(Trim(line.substr(0, colon)));
    std::string value(Trim(line.substr(colon + 1)));
    if (key == "nvidia-smi version") builder.SetAttribute("nvidia_smi_version", value);
    if (key == "nvml version") builder.SetAttribute("nvml_version", value);
    if (key == "driver version") builder.SetAttribute("driver_version", value);
    if (key == "cuda version") builder.SetAttribute("cuda_version", value);
  }
  return true;
}

void ParseCapturePreamble(const Section& section, ProfileBuilder& builder) {
  for (std::string_view line : Lines(section.body)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string_view key = line.substr(0, colon);
    bool is_key = std::all_of(key.begin(), key.end(),
                              [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == '_'; });
    if (is_key) builder.SetAttribute("capture." + std::string(key), std::string(Trim(line.substr(colon + 1))));
  }
}

}  // namespace kraken::nvidia_smi
