#include "agent/device_batches.h"

#include <algorithm>

#include "agent/metric_groups.h"

namespace kraken::agent {
namespace {

// What an opted-out GPU still shows: the groups of device-level series.
config::MetricGroups DeviceLevelGroups() {
  config::MetricGroups groups;
  groups.profiling = false;
  groups.processes = false;
  return groups;
}

void CopyValue(const SampleBatch::Value& in, int32_t entity, SampleBatch::Value& out) {
  out.metric = in.metric;
  out.entity = entity;
  out.value = in.value;
  out.source_name = in.source_name;  // assignment keeps the slot's buffer
}

// The metrics of the sampler's slow reads that /metrics holds between them (at most 32:
// ForEachMissingHeld keeps one bit per slot).
constexpr Metric kHeldMetrics[] = {Metric::kEnergyMj,
                                   Metric::kPcieTxBytesPerS,
                                   Metric::kPcieRxBytesPerS,
                                   Metric::kRemappedRowsCorrectableCount,
                                   Metric::kRemappedRowsUncorrectableCount,
                                   Metric::kRemappedRowsPending,
                                   Metric::kRemappedRowsFailure,
                                   Metric::kRetiredPagesSbeCount,
                                   Metric::kRetiredPagesDbeCount,
                                   Metric::kRetiredPagesPending,
                                   Metric::kNvlinkCrcFlitErrorCount,
                                   Metric::kNvlinkCrcDataErrorCount,
                                   Metric::kNvlinkReplayErrorCount,
                                   Metric::kNvlinkRecoveryErrorCount};
constexpr size_t kHeldCount = sizeof(kHeldMetrics) / sizeof(kHeldMetrics[0]);
static_assert(kHeldCount <= 32);

int HeldSlot(Metric metric) {
  for (size_t i = 0; i < kHeldCount; ++i)
    if (kHeldMetrics[i] == metric) return static_cast<int>(i);
  return -1;
}

bool IsGpuLevel(const SeriesEntity& e) { return e.gpu_index >= 0 && e.gpu_instance_id < 0 && e.pid < 0; }

// Per GPU-level entity of `batch` (by GPU): a bit per held slot it has a value for.
template <typename Each>
void ForEachMissingHeld(const SampleBatch& batch, const HeldSlowValues& held, Each each) {
  for (size_t e = 0; e < batch.entities.size(); ++e) {
    const SeriesEntity& entity = batch.entities[e];
    if (!IsGpuLevel(entity) || static_cast<size_t>(entity.gpu_index) >= held.size()) continue;
    unsigned present = 0;
    for (const SampleBatch::Value& v : batch.values) {
      int slot = HeldSlot(v.metric);
      if (v.entity == static_cast<int32_t>(e) && slot >= 0) present |= 1u << slot;
    }
    const auto& slots = held[static_cast<size_t>(entity.gpu_index)];
    for (size_t i = 0; i < slots.size(); ++i)
      if (slots[i].seen && !(present & (1u << i))) each(static_cast<int32_t>(e), slots[i]);
  }
}

}  // namespace

void HoldSlowValues(const SampleBatch& batch, size_t gpus, HeldSlowValues& held) {
  if (held.size() != gpus) held.assign(gpus, std::vector<HeldSlowValue>(kHeldCount));
  for (const SampleBatch::Value& v : batch.values) {
    int slot = HeldSlot(v.metric);
    if (slot < 0 || v.entity < 0 || static_cast<size_t>(v.entity) >= batch.entities.size()) continue;
    const SeriesEntity& e = batch.entities[static_cast<size_t>(v.entity)];
    if (!IsGpuLevel(e) || static_cast<size_t>(e.gpu_index) >= gpus) continue;
    HeldSlowValue& h = held[static_cast<size_t>(e.gpu_index)][static_cast<size_t>(slot)];
    h.metric = v.metric;
    h.value = v.value;
    h.source_name = v.source_name;  // assignment keeps the buffer
    h.seen = true;
  }
}

bool MissesHeldValues(const SampleBatch& batch, const HeldSlowValues& held) {
  bool missing = false;
  ForEachMissingHeld(batch, held, [&](int32_t, const HeldSlowValue&) { missing = true; });
  return missing;
}

void AddHeldValues(const HeldSlowValues& held, SampleBatch& batch) {
  std::vector<SampleBatch::Value> added;
  ForEachMissingHeld(batch, held, [&](int32_t entity, const HeldSlowValue& h) {
    added.push_back(SampleBatch::Value{h.metric, entity, h.value, h.source_name});
  });
  for (SampleBatch::Value& v : added) batch.values.push_back(std::move(v));
}

namespace {

bool IsProcessUtilization(Metric metric) {
  return metric == Metric::kProcessSmUtilPct || metric == Metric::kProcessMemUtilPct;
}

// Calls `each(entity, held value)` for the held values `batch`'s process entities lack.
template <typename Each>
void ForEachMissingProcessValue(const SampleBatch& batch, const HeldProcessValues& held, Each each) {
  for (size_t e = 0; e < batch.entities.size(); ++e) {
    const SeriesEntity& entity = batch.entities[e];
    if (entity.pid < 0 || entity.gpu_index < 0 || static_cast<size_t>(entity.gpu_index) >= held.size()) continue;
    for (const HeldProcessValue& h : held[static_cast<size_t>(entity.gpu_index)]) {
      if (h.pid != entity.pid) continue;
      bool present = false;
      for (const SampleBatch::Value& v : batch.values)
        present = present || (v.entity == static_cast<int32_t>(e) && v.metric == h.metric);
      if (!present) each(static_cast<int32_t>(e), h);
    }
  }
}

}  // namespace

void HoldProcessValues(const SampleBatch& batch, const std::vector<uint8_t>& read, HeldProcessValues& held) {
  if (held.size() != read.size()) held.assign(read.size(), {});
  for (size_t d = 0; d < read.size(); ++d)
    if (read[d] != 0) held[d].clear();
  for (const SampleBatch::Value& v : batch.values) {
    if (!IsProcessUtilization(v.metric) || v.entity < 0 || static_cast<size_t>(v.entity) >= batch.entities.size())
      continue;
    const SeriesEntity& e = batch.entities[static_cast<size_t>(v.entity)];
    if (e.pid < 0 || e.gpu_index < 0 || static_cast<size_t>(e.gpu_index) >= read.size()) continue;
    if (read[static_cast<size_t>(e.gpu_index)] == 0) continue;
    held[static_cast<size_t>(e.gpu_index)].push_back(HeldProcessValue{e.pid, v.metric, v.value, v.source_name});
  }
}

bool MissesHeldProcessValues(const SampleBatch& batch, const HeldProcessValues& held) {
  bool missing = false;
  ForEachMissingProcessValue(batch, held, [&](int32_t, const HeldProcessValue&) { missing = true; });
  return missing;
}

void AddHeldProcessValues(const HeldProcessValues& held, SampleBatch& batch) {
  std::vector<SampleBatch::Value> added;
  ForEachMissingProcessValue(batch, held, [&](int32_t entity, const HeldProcessValue& h) {
    added.push_back(SampleBatch::Value{h.metric, entity, h.value, h.source_name});
  });
  for (SampleBatch::Value& v : added) batch.values.push_back(std::move(v));
}

bool MarkOptedOut(const std::vector<DevicePlan>& plans, const SampleBatch& batch, std::vector<uint8_t>& opted_out,
                  const PodPolicies* policies) {
  opted_out.assign(batch.entities.size(), 0);
  bool any = false;
  for (size_t e = 0; e < batch.entities.size(); ++e) {
    const SeriesEntity& entity = batch.entities[e];
    if (entity.gpu_index < 0 || static_cast<size_t>(entity.gpu_index) >= plans.size()) continue;
    const DevicePlan& plan = plans[static_cast<size_t>(entity.gpu_index)];
    bool out = plan.gpu_opted_out;
    if (!out && !plan.opted_out_instances.empty()) {
      out = entity.gpu_instance_id >= 0
                ? std::find(plan.opted_out_instances.begin(), plan.opted_out_instances.end(),
                            entity.gpu_instance_id) != plan.opted_out_instances.end()
                : entity.pid >= 0;
    }
    if (!out && policies != nullptr && entity.pid >= 0 && !entity.pod.empty()) {
      auto policy = policies->find({entity.namespace_name, entity.pod});
      out = policy != policies->end() && policy->second.disabled;
    }
    opted_out[e] = out;
    any = any || out;
  }
  return any;
}

void StripOptedOut(const std::vector<uint8_t>& opted_out, SampleBatch& batch, BatchSpare& spare) {
  static const config::MetricGroups kDeviceLevel = DeviceLevelGroups();
  for (size_t e = 0; e < batch.entities.size() && e < opted_out.size(); ++e) {
    if (!opted_out[e]) continue;
    SeriesEntity& entity = batch.entities[e];
    entity.pod.clear();
    entity.namespace_name.clear();
    entity.container.clear();
    entity.labels.clear();
  }
  size_t kept = 0;
  for (size_t i = 0; i < batch.values.size(); ++i) {
    const SampleBatch::Value& v = batch.values[i];
    bool opted = v.entity >= 0 && static_cast<size_t>(v.entity) < opted_out.size() && opted_out[static_cast<size_t>(v.entity)];
    if (opted && (batch.entities[static_cast<size_t>(v.entity)].pid >= 0 || !MetricEnabled(kDeviceLevel, v.metric)))
      continue;
    if (kept != i) std::swap(batch.values[kept], batch.values[i]);  // swaps keep both buffers
    ++kept;
  }
  ResizeKeeping(batch.values, kept, spare.values);
}

void CopyWithoutOptedOut(const std::vector<uint8_t>& opted_out, const SampleBatch& in, SampleBatch& out,
                         std::vector<int32_t>& remap, BatchSpare& spare) {
  out.time_ns = in.time_ns;
  remap.assign(in.entities.size(), -1);
  size_t entities = 0;
  for (size_t e = 0; e < in.entities.size(); ++e)
    if (e >= opted_out.size() || !opted_out[e]) remap[e] = static_cast<int32_t>(entities++);
  ResizeKeeping(out.entities, entities, spare.entities);
  for (size_t e = 0; e < in.entities.size(); ++e)
    if (remap[e] >= 0) out.entities[static_cast<size_t>(remap[e])] = in.entities[e];
  size_t values = 0;
  for (const SampleBatch::Value& v : in.values)
    values += v.entity < 0 || (static_cast<size_t>(v.entity) < remap.size() && remap[static_cast<size_t>(v.entity)] >= 0);
  ResizeKeeping(out.values, values, spare.values);
  size_t k = 0;
  for (const SampleBatch::Value& v : in.values) {
    if (v.entity >= 0 && (static_cast<size_t>(v.entity) >= remap.size() || remap[static_cast<size_t>(v.entity)] < 0)) continue;
    CopyValue(v, v.entity < 0 ? -1 : remap[static_cast<size_t>(v.entity)], out.values[k++]);
  }
}

void KeepNewestPerDevice(const SampleBatch& in, const std::vector<uint8_t>& sampled,
                         std::vector<SampleBatch>& per_device, std::vector<int32_t>& remap) {
  remap.assign(in.entities.size(), -1);
  for (size_t d = 0; d < per_device.size(); ++d) {
    if (d >= sampled.size() || !sampled[d]) continue;
    SampleBatch& out = per_device[d];
    out.time_ns = in.time_ns;
    size_t entities = 0;
    for (size_t e = 0; e < in.entities.size(); ++e)
      if (in.entities[e].gpu_index == static_cast<int32_t>(d)) remap[e] = static_cast<int32_t>(entities++);
    out.entities.resize(entities);
    for (size_t e = 0; e < in.entities.size(); ++e)
      if (in.entities[e].gpu_index == static_cast<int32_t>(d)) out.entities[static_cast<size_t>(remap[e])] = in.entities[e];
    size_t values = 0;
    for (const SampleBatch::Value& v : in.values)
      if (v.entity >= 0 && static_cast<size_t>(v.entity) < in.entities.size() &&
          in.entities[static_cast<size_t>(v.entity)].gpu_index == static_cast<int32_t>(d))
        ++values;
    out.values.resize(values);
    size_t k = 0;
    for (const SampleBatch::Value& v : in.values)
      if (v.entity >= 0 && static_cast<size_t>(v.entity) < in.entities.size() &&
          in.entities[static_cast<size_t>(v.entity)].gpu_index == static_cast<int32_t>(d))
        CopyValue(v, remap[static_cast<size_t>(v.entity)], out.values[k++]);
  }
}

void ConcatDevices(const std::vector<SampleBatch>& per_device, SampleBatch& out) {
  size_t entities = 0, values = 0;
  out.time_ns = 0;
  for (const SampleBatch& d : per_device) {
    entities += d.entities.size();
    values += d.values.size();
    out.time_ns = std::max(out.time_ns, d.time_ns);
  }
  out.entities.resize(entities);
  out.values.resize(values);
  size_t e0 = 0, k = 0;
  for (const SampleBatch& d : per_device) {
    for (size_t e = 0; e < d.entities.size(); ++e) out.entities[e0 + e] = d.entities[e];
    for (const SampleBatch::Value& v : d.values) CopyValue(v, v.entity < 0 ? -1 : v.entity + static_cast<int32_t>(e0), out.values[k++]);
    e0 += d.entities.size();
  }
}

}  // namespace kraken::agent
