// Collects samples of many series that arrive interleaved (long-format CSVs: one row per
// timestamp and entity) and hands them over in time order. Used by the cluster-series
// importers, whose rows are sorted by time but mix hundreds of pods.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/series.h"

namespace kraken {

class SeriesCollector {
 public:
  // The series for `key`; `prototype` (metric, entity, ...) is copied when it is new.
  Series& Get(std::string_view key, const Series& prototype);

  // Moves the series out in first-seen order, each sorted by time (stable, so equal
  // timestamps keep file order). Counts into `counters`: `<prefix>_out_of_order_rows`
  // (rows that had to be moved) and `<prefix>_duplicate_timestamps` (a second sample at
  // a time the series already has; both are kept, the analysis decides).
  std::vector<Series> Finish(std::string_view prefix, std::map<std::string, int64_t>* counters);

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<Series> series_;
};

}  // namespace kraken
