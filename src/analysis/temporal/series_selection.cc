#include "analysis/temporal/series_selection.h"

#include <algorithm>

#include "base/text.h"

namespace kraken::temporal {
namespace {

bool IsIndex(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

}  // namespace

Result<std::vector<Horizon>> ParseHorizons(const std::string& text) {
  std::vector<Horizon> out;
  for (std::string_view part : Split(text, ',')) {
    auto h = ParseHorizon(part);
    if (!h)
      return InvalidInput("--horizon expects durations like 1h,24h (units s, m, h, d, w, or it for iterations), got '" +
                          std::string(Trim(part)) + "'");
    out.push_back(*h);
  }
  if (out.empty()) return InvalidInput("--horizon needs at least one duration");
  return out;
}

std::vector<size_t> SelectSeries(const Profile& profile, const std::vector<std::string>& selectors,
                                 std::vector<bool>* matched) {
  std::vector<size_t> out;
  std::vector<std::string> names;
  for (const Series& s : profile.series) names.push_back(SeriesName(s));
  auto add = [&](size_t i) {
    if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  };
  if (selectors.empty()) {
    for (size_t i = 0; i < names.size(); ++i) add(i);
    return out;
  }
  for (size_t k = 0; k < selectors.size(); ++k) {
    const std::string& sel = selectors[k];
    std::vector<size_t> hits;
    if (IsIndex(sel)) {
      auto index = ParseUint64(sel);
      if (index && *index < names.size()) hits.push_back(static_cast<size_t>(*index));
    } else {
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == sel) hits.push_back(i);
      if (hits.empty())
        for (size_t i = 0; i < names.size(); ++i)
          if (names[i].find(sel) != std::string::npos) hits.push_back(i);
    }
    if (!hits.empty() && k < matched->size()) (*matched)[k] = true;
    for (size_t i : hits) add(i);
  }
  return out;
}

}  // namespace kraken::temporal
