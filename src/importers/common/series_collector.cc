#include "importers/common/series_collector.h"

#include <algorithm>

namespace kraken {

Series& SeriesCollector::Get(std::string_view key, const Series& prototype) {
  auto it = index_.find(std::string(key));
  if (it != index_.end()) return series_[it->second];
  index_.emplace(std::string(key), series_.size());
  return series_.emplace_back(prototype);
}

std::vector<Series> SeriesCollector::Finish(std::string_view prefix, std::map<std::string, int64_t>* counters) {
  int64_t out_of_order = 0;
  int64_t duplicates = 0;
  for (Series& s : series_) {
    auto by_time = [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; };
    for (size_t i = 1; i < s.samples.size(); ++i)
      if (s.samples[i].time_ns < s.samples[i - 1].time_ns) ++out_of_order;
    if (!std::is_sorted(s.samples.begin(), s.samples.end(), by_time))
      std::stable_sort(s.samples.begin(), s.samples.end(), by_time);
    for (size_t i = 1; i < s.samples.size(); ++i)
      if (s.samples[i].time_ns == s.samples[i - 1].time_ns) ++duplicates;
  }
  std::string p(prefix);
  if (out_of_order > 0) (*counters)[p + "_out_of_order_rows"] += out_of_order;
  if (duplicates > 0) (*counters)[p + "_duplicate_timestamps"] += duplicates;
  index_.clear();
  return std::move(series_);
}

}  // namespace kraken
