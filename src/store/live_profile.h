// The in-memory state of one profile being ingested live: which series each (entity,
// metric, source name) maps to, and the samples not yet written. Appending a value is a
// hash lookup and a push_back; the database sees whole blocks in batched transactions.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/sample_batch.h"
#include "store/profile_tables.h"

namespace kraken::store {

// Full blocks waiting for a transaction. 256 x 512 samples: one commit per ~131k samples,
// so the commit's cost (a WAL append, no fsync with synchronous=NORMAL) is negligible.
inline constexpr size_t kBlocksPerTransaction = 256;

struct LiveSeries {
  Metric metric = Metric::kOther;
  std::string source_name;
  int32_t entity_slot = 0;
  int64_t series_id = 0;  // 0 until its row is written
  int64_t next_block_seq = 0;
  std::vector<Sample> pending;  // fewer than kBlockSamples
};

struct LiveBlock {
  int32_t series = 0;  // index into LiveProfile::series
  int64_t seq = 0;
  std::vector<Sample> samples;
};

struct LiveProfile {
  int64_t id = 0;
  ProfileTotals totals;
  std::vector<SeriesEntity> entities;                       // by slot
  std::unordered_map<std::string, int32_t> entity_slots;    // EntityKey -> slot
  // (slot << 16 | metric) -> series indices with that pair; usually one, more only when
  // the source names differ (several kOther fields of one GPU).
  std::unordered_map<uint64_t, std::vector<int32_t>> series_by_key;
  std::vector<LiveSeries> series;
  std::vector<LiveBlock> full_blocks;
  bool events_attached = false;  // AttachEvents ran (its rows use sequence numbers from 0)
};

// A string that is equal for equal entities (every field, labels included).
std::string EntityKey(const SeriesEntity& entity);

}  // namespace kraken::store
