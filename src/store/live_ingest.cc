// ProfileStore's live ingest: BeginProfile, AppendBatch, Commit, Abort.
#include <algorithm>
#include <cstddef>
#include <span>

#include "store/live_profile.h"
#include "store/database.h"
#include "store/store.h"

namespace kraken {

using store::LiveBlock;
using store::LiveProfile;
using store::LiveSeries;
using store::WriteTransaction;

namespace store {

std::string EntityKey(const SeriesEntity& e) {
  std::string key;
  auto add = [&key](std::string_view part) {
    key += part;
    key.push_back('\x1f');  // unit separator: cannot be confused with text in the fields
  };
  add(std::to_string(e.gpu_index));
  add(e.gpu_uuid);
  add(e.gpu_name);
  add(e.pci_bus_id);
  add(std::to_string(e.gpu_instance_id));
  add(e.mig_profile);
  add(std::to_string(e.pid));
  add(e.process_name);
  add(e.hostname);
  add(e.pod);
  add(e.namespace_name);
  add(e.container);
  for (const auto& [k, v] : e.labels) {
    add(k);
    add(v);
  }
  return key;
}

}  // namespace store

Result<int64_t> ProfileStore::BeginProfile(const ProfileMetadata& metadata, const std::vector<DeviceInfo>& devices) {
  if (read_only_) return IoError(path() + ": opened read-only");
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  KRAKEN_ASSIGN_OR_RETURN(int64_t id, store::InsertProfileRow(*db_, metadata, "live", store::CurrentProcessOwner(),
                                                              store::NowNs()));
  KRAKEN_RETURN_IF_ERROR(store::WriteDevices(*db_, id, devices));
  KRAKEN_RETURN_IF_ERROR(txn.Commit());
  auto live = std::make_unique<LiveProfile>();
  live->id = id;
  live->totals.devices = static_cast<int64_t>(devices.size());
  live_[id] = std::move(live);
  return id;
}

Status ProfileStore::AppendBatch(int64_t id, const SampleBatch& batch) {
  auto it = live_.find(id);
  if (it == live_.end()) return NotFound(path() + ": profile " + std::to_string(id) + " is not being ingested here");
  LiveProfile& live = *it->second;
  const auto entity_count = static_cast<int32_t>(batch.entities.size());
  for (size_t i = 0; i < batch.values.size(); ++i)
    if (batch.values[i].entity >= entity_count)
      return InvalidInput("batch value " + std::to_string(i) + " names entity " +
                          std::to_string(batch.values[i].entity) + " of " + std::to_string(entity_count));

  // Slots of this batch's entities; a value with entity -1 describes the node as a whole.
  std::vector<int32_t> slots(batch.entities.size() + 1);
  for (size_t i = 0; i <= batch.entities.size(); ++i) {
    static const SeriesEntity kNode;
    const SeriesEntity& entity = i < batch.entities.size() ? batch.entities[i] : kNode;
    auto [slot, added] = live.entity_slots.try_emplace(store::EntityKey(entity), 0);
    if (added) {
      slot->second = static_cast<int32_t>(live.entities.size());
      live.entities.push_back(entity);
    }
    slots[i] = slot->second;
  }

  for (const SampleBatch::Value& value : batch.values) {
    int32_t slot = slots[value.entity < 0 ? batch.entities.size() : static_cast<size_t>(value.entity)];
    uint64_t key = (static_cast<uint64_t>(slot) << 16) | static_cast<uint16_t>(value.metric);
    std::vector<int32_t>& candidates = live.series_by_key[key];
    int32_t index = -1;
    for (int32_t c : candidates)
      if (live.series[static_cast<size_t>(c)].source_name == value.source_name) index = c;
    if (index < 0) {
      index = static_cast<int32_t>(live.series.size());
      LiveSeries& added = live.series.emplace_back();
      added.metric = value.metric;
      added.source_name = value.source_name;
      added.entity_slot = slot;
      added.pending.reserve(store::kBlockSamples);
      candidates.push_back(index);
    }
    LiveSeries& series = live.series[static_cast<size_t>(index)];
    series.pending.push_back(Sample{batch.time_ns, value.value});
    if (series.pending.size() == store::kBlockSamples) {
      live.full_blocks.push_back(LiveBlock{index, series.next_block_seq++, std::move(series.pending)});
      series.pending = {};
      series.pending.reserve(store::kBlockSamples);
    }
  }
  if (!batch.values.empty()) {
    live.totals.samples += static_cast<int64_t>(batch.values.size());
    live.totals.Extend(batch.time_ns, batch.time_ns);
  }
  if (live.full_blocks.size() >= store::kBlocksPerTransaction) return FlushLive(live, false);
  return Status::Ok();
}

// Writes new series rows and the full blocks (and, when `all`, the partial ones and the
// completion) in one transaction. On failure nothing is forgotten: the blocks stay queued.
Status ProfileStore::FlushLive(LiveProfile& live, bool all) {
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  std::vector<size_t> new_series;
  Status status = [&]() -> Status {
    for (size_t i = 0; i < live.series.size(); ++i) {
      LiveSeries& s = live.series[i];
      if (s.series_id != 0) continue;
      KRAKEN_ASSIGN_OR_RETURN(s.series_id, store::InsertSeriesRow(*db_, live.id, static_cast<int64_t>(i), s.metric,
                                                                  s.source_name, live.entities[s.entity_slot]));
      new_series.push_back(i);
    }
    KRAKEN_ASSIGN_OR_RETURN(store::BlockWriter writer, store::BlockWriter::Create(*db_));
    for (const LiveBlock& block : live.full_blocks)
      KRAKEN_RETURN_IF_ERROR(writer.Write(live.series[static_cast<size_t>(block.series)].series_id, block.seq,
                                          block.samples));
    if (!all) return Status::Ok();
    for (const LiveSeries& s : live.series)
      if (!s.pending.empty()) KRAKEN_RETURN_IF_ERROR(writer.Write(s.series_id, s.next_block_seq, s.pending));
    store::ProfileTotals totals = live.totals;
    totals.series = static_cast<int64_t>(live.series.size());
    return store::MarkComplete(*db_, live.id, totals);
  }();
  if (status.ok()) status = txn.Commit();
  if (!status.ok()) {
    for (size_t i : new_series) live.series[i].series_id = 0;  // their rows were rolled back
    return status;
  }
  live.full_blocks.clear();
  return Status::Ok();
}

namespace {

// The series of attached events (the CUPTI tracer's device memory) join the live ones: their
// rows and blocks are written with the sampled series' at the commit.
void QueueEventSeries(const Profile& events, store::LiveProfile* live) {
  for (const Series& series : events.series) {
    auto [slot, added] = live->entity_slots.try_emplace(store::EntityKey(series.entity), 0);
    if (added) {
      slot->second = static_cast<int32_t>(live->entities.size());
      live->entities.push_back(series.entity);
    }
    const auto index = static_cast<int32_t>(live->series.size());
    const uint64_t key = (static_cast<uint64_t>(slot->second) << 16) | static_cast<uint16_t>(series.metric);
    live->series_by_key[key].push_back(index);
    store::LiveSeries& queued = live->series.emplace_back();
    queued.metric = series.metric;
    queued.source_name = series.source_name;
    queued.entity_slot = slot->second;
    std::span<const Sample> samples(series.samples);
    for (size_t start = 0; start < samples.size(); start += store::kBlockSamples) {
      const size_t n = std::min(store::kBlockSamples, samples.size() - start);
      std::vector<Sample> block(samples.begin() + static_cast<std::ptrdiff_t>(start),
                                samples.begin() + static_cast<std::ptrdiff_t>(start + n));
      if (n < store::kBlockSamples) {
        queued.pending = std::move(block);
      } else {
        live->full_blocks.push_back(store::LiveBlock{index, queued.next_block_seq++, std::move(block)});
      }
    }
    live->totals.samples += static_cast<int64_t>(samples.size());
  }
}

}  // namespace

Status ProfileStore::AttachEvents(int64_t id, const Profile& events) {
  auto it = live_.find(id);
  if (it == live_.end()) return NotFound(path() + ": profile " + std::to_string(id) + " is not being ingested here");
  LiveProfile& live = *it->second;
  if (live.events_attached)
    return InvalidInput(path() + ": profile " + std::to_string(id) + " already has its events attached");
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  KRAKEN_RETURN_IF_ERROR(store::WriteEvents(*db_, id, events));
  KRAKEN_ASSIGN_OR_RETURN(store::Statement attribute,
                          db_->Prepare("INSERT INTO profile_attributes VALUES(?, ?, ?) "
                                       "ON CONFLICT(profile_id, key) DO UPDATE SET value = excluded.value"));
  for (const auto& [key, value] : events.metadata.attributes)
    KRAKEN_RETURN_IF_ERROR(attribute.Int(id).Text(key).Text(value).Run());
  KRAKEN_RETURN_IF_ERROR(txn.Commit());
  live.events_attached = true;
  QueueEventSeries(events, &live);
  store::ProfileTotals added = store::ComputeTotals(events);
  live.totals.kernels += added.kernels;
  live.totals.memory_ops += added.memory_ops;
  live.totals.cpu_ops += added.cpu_ops;
  live.totals.runtime_calls += added.runtime_calls;
  if (added.start_ns) live.totals.Extend(*added.start_ns, *added.end_ns);
  return Status::Ok();
}

Status ProfileStore::Commit(int64_t id) {
  auto it = live_.find(id);
  if (it == live_.end()) return NotFound(path() + ": profile " + std::to_string(id) + " is not being ingested here");
  KRAKEN_RETURN_IF_ERROR(FlushLive(*it->second, true));
  live_.erase(it);
  return Status::Ok();
}

Status ProfileStore::Abort(int64_t id) {
  auto it = live_.find(id);
  if (it == live_.end()) return NotFound(path() + ": profile " + std::to_string(id) + " is not being ingested here");
  live_.erase(it);
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  KRAKEN_RETURN_IF_ERROR(store::DeleteProfileRows(*db_, id));
  return txn.Commit();
}

}  // namespace kraken
