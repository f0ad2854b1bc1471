#include "agent/sample_ring.h"

#include <algorithm>

#include "base/json_writer.h"

namespace kraken::agent {

SampleRing::SampleRing(size_t capacity) : slots_(std::max<size_t>(capacity, 1)) {}

void SampleRing::Push(const SampleBatch& batch) {
  SampleBatch& slot = slots_[next_];
  // Element-wise assignment keeps the slot's vectors and strings, and their capacity.
  slot.time_ns = batch.time_ns;
  slot.entities.resize(batch.entities.size());
  std::copy(batch.entities.begin(), batch.entities.end(), slot.entities.begin());
  slot.values.resize(batch.values.size());
  for (size_t i = 0; i < batch.values.size(); ++i) {
    const SampleBatch::Value& in = batch.values[i];
    SampleBatch::Value& out = slot.values[i];
    out.metric = in.metric;
    out.entity = in.entity;
    out.value = in.value;
    // The NVML call names ("nvmlDeviceGetUtilizationRates.memory") are only needed to tell
    // kOther fields apart; kept for every value they were a third of the ring's memory
    // (measured: 29.6 MB RSS with them at 600 passes of 8 GPUs, docs/agent.md).
    if (in.metric == Metric::kOther) {
      out.source_name = in.source_name;
    } else {
      out.source_name.clear();
    }
  }
  next_ = (next_ + 1) % slots_.size();
  size_ = std::min(size_ + 1, slots_.size());
}

const SampleBatch& SampleRing::FromNewest(size_t i) const {
  size_t n = slots_.size();
  return slots_[(next_ + n - 1 - (i % n)) % n];
}

void RenderRingJson(const SampleRing& ring, int64_t since_ns, size_t max_passes, const std::string& hostname,
                    int64_t committed_profiles, std::string& out) {
  size_t newer = 0;
  while (newer < ring.size() && newer < max_passes && ring.FromNewest(newer).time_ns > since_ns) ++newer;
  JsonWriter json(false);
  json.BeginObject().Field("hostname", hostname).Field("committed_profiles", committed_profiles);
  json.Key("passes").BeginArray();
  for (size_t i = newer; i-- > 0;) {
    const SampleBatch& pass = ring.FromNewest(i);
    json.BeginObject().Field("time_ns", pass.time_ns).Key("samples").BeginArray();
    for (const SampleBatch::Value& v : pass.values) {
      if (v.metric == Metric::kOther || v.entity < 0 || static_cast<size_t>(v.entity) >= pass.entities.size()) continue;
      const SeriesEntity& e = pass.entities[static_cast<size_t>(v.entity)];
      if (e.pid >= 0) continue;
      json.BeginObject().Field("gpu_index", e.gpu_index).Field("gpu_instance_id", e.gpu_instance_id);
      json.Field("metric", GetMetricInfo(v.metric).name).Field("value", v.value).EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  out = json.Take();
}

size_t RingCapacity(int64_t ring_ns, int64_t interval_ns) {
  if (interval_ns <= 0 || ring_ns <= 0) return 1;
  int64_t count = ring_ns / interval_ns;
  return static_cast<size_t>(std::clamp<int64_t>(count, 1, 100'000));
}

}  // namespace kraken::agent
