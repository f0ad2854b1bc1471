#include "analysis/mig/layout_name.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "base/text.h"

namespace kraken::mig {
namespace {

constexpr size_t kMaxLabelValue = 63;

bool IsAlphanumeric(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// The number before `unit` in a profile ("3g.20gb": 3 before "g", 20 before "gb").
int NumberBefore(std::string_view profile, std::string_view unit) {
  size_t at = profile.find(unit);
  if (at == std::string_view::npos) return 0;
  size_t begin = at;
  while (begin > 0 && profile[begin - 1] >= '0' && profile[begin - 1] <= '9') --begin;
  std::optional<int64_t> n = ParseInt64(profile.substr(begin, at - begin));
  return n ? static_cast<int>(*n) : 0;
}

std::string LabelSafe(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (!IsAlphanumeric(c) && c != '.' && c != '-' && c != '_') c = '_';
  return out;
}

}  // namespace

bool IsValidLabelValue(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > kMaxLabelValue) return false;
  if (!IsAlphanumeric(value.front()) || !IsAlphanumeric(value.back())) return false;
  return std::all_of(value.begin(), value.end(),
                     [](char c) { return IsAlphanumeric(c) || c == '.' || c == '-' || c == '_'; });
}

std::string MigLayoutName(const std::map<std::string, int>& instances_by_profile) {
  std::vector<std::tuple<int, int, std::string, int>> parts;  // slices, memory GB, profile, count
  for (const auto& [profile, count] : instances_by_profile) {
    if (count <= 0) continue;
    parts.emplace_back(NumberBefore(profile, "g."), NumberBefore(profile, "gb"), profile, count);
  }
  if (parts.empty()) return "none";
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
    if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
    return std::get<2>(a) < std::get<2>(b);
  });
  std::string text;
  for (const auto& [slices, memory, profile, count] : parts) {
    if (!text.empty()) text += '.';
    text += LabelSafe(profile) + "-x" + std::to_string(count);
  }
  return IsValidLabelValue(text) ? text : "mixed";
}

}  // namespace kraken::mig
