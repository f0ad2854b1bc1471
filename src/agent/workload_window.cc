#include "agent/workload_window.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/gpm_bound.h"
#include "analysis/pooling/pod_pooling.h"
#include "exporter/exported_metrics.h"

namespace kraken::agent {
namespace {

// One GPU / MIG instance as one pod sees it: a pod's use is a series of its own.
using EntityKey = std::tuple<int32_t, std::string, int32_t, std::string, std::string, std::string>;

EntityKey KeyOf(const SeriesEntity& e) {
  return {e.gpu_index, e.gpu_uuid, e.gpu_instance_id, e.namespace_name, e.pod, e.container};
}

// The ring keeps NVML call names only for kOther values; the series take the DCGM field
// name instead, which is what the analyses' --explain "basis" shows for dcgm-exporter data.
std::string SourceNameOf(Metric metric) {
  const exporter::ExportedMetric* exported = exporter::FindExportedMetric(metric);
  return exported != nullptr ? std::string(exported->dcgm->field) : std::string(GetMetricInfo(metric).name);
}

// Per pass: the larger of SM and tensor activity, and DRAM activity, when GPM gave them
// (the inputs of the bound rule, paired within a pass as `kraken profile` pairs them).
struct GpmPass {
  double sm = -1, tensor = -1, dram = -1;
};

struct Slot {
  SeriesEntity entity;
  const SeriesEntity* newest = nullptr;    // in the newest pass with values; copied once at the end
  std::vector<const SampleBatch*> passes;  // those with values of the entity
  std::vector<double> sm_or_tensor, dram;
  Profile profile;                         // its series, as an importer would make them
  std::vector<int> series_of;              // by Metric value: index into profile.series, -1 none
};

bool InMigMode(const std::vector<Slot>& slots, const SeriesEntity& gpu) {
  return std::any_of(slots.begin(), slots.end(), [&](const Slot& s) {
    return s.entity.gpu_instance_id >= 0 && s.entity.gpu_index == gpu.gpu_index &&
           s.entity.gpu_uuid == gpu.gpu_uuid;
  });
}

Profile EmptyProfile(const SeriesEntity& entity, const std::vector<DeviceInfo>& devices, const std::string& hostname) {
  Profile profile;
  profile.metadata.source = "kraken agent";
  profile.metadata.format = "nvml";
  profile.metadata.hostname = hostname;
  profile.metadata.accelerator_vendor = Vendor::kNvidia;
  for (const DeviceInfo& d : devices)
    if (!entity.gpu_uuid.empty() ? d.uuid == entity.gpu_uuid : d.index == entity.gpu_index)
      profile.devices.push_back(d);
  return profile;
}

void AddValue(const SampleBatch& batch, const SampleBatch::Value& v, size_t window_passes, Slot& slot) {
  if (v.metric == Metric::kOther) return;
  size_t m = static_cast<size_t>(v.metric);
  if (m >= slot.series_of.size()) slot.series_of.resize(m + 1, -1);
  if (slot.series_of[m] < 0) {
    slot.series_of[m] = static_cast<int>(slot.profile.series.size());
    Series& s = slot.profile.series.emplace_back();
    s.metric = v.metric;
    s.source_name = SourceNameOf(v.metric);
    s.samples.reserve(window_passes);
  }
  slot.profile.series[static_cast<size_t>(slot.series_of[m])].samples.push_back({batch.time_ns, v.value});
}

// One scan of the window: entities, their series and their GPM activity per pass.
std::vector<Slot> CollectSlots(std::span<const SampleBatch* const> passes, const std::vector<DeviceInfo>& devices,
                               const std::string& hostname) {
  std::vector<Slot> slots;
  std::map<EntityKey, size_t> slot_of;
  std::vector<int> slot_of_entity;
  std::vector<GpmPass> gpm;
  for (const SampleBatch* batch : passes) {
    if (batch == nullptr) continue;
    // Keys once per entity of the pass, not per value.
    slot_of_entity.assign(batch->entities.size(), -1);
    for (size_t e = 0; e < batch->entities.size(); ++e) {
      const SeriesEntity& entity = batch->entities[e];
      if (entity.pid >= 0) continue;
      auto [it, added] = slot_of.emplace(KeyOf(entity), slots.size());
      if (added) slots.emplace_back().profile = EmptyProfile(entity, devices, hostname);
      slot_of_entity[e] = static_cast<int>(it->second);
    }
    gpm.assign(slots.size(), GpmPass{});
    std::vector<bool> seen(slots.size(), false);
    for (const SampleBatch::Value& v : batch->values) {
      if (v.entity < 0 || static_cast<size_t>(v.entity) >= slot_of_entity.size()) continue;
      int index = slot_of_entity[static_cast<size_t>(v.entity)];
      if (index < 0) continue;
      Slot& slot = slots[static_cast<size_t>(index)];
      if (!seen[static_cast<size_t>(index)]) {
        seen[static_cast<size_t>(index)] = true;
        slot.newest = &batch->entities[static_cast<size_t>(v.entity)];  // the newest pass names it
        slot.passes.push_back(batch);
      }
      AddValue(*batch, v, passes.size(), slot);
      GpmPass& g = gpm[static_cast<size_t>(index)];
      if (v.metric == Metric::kSmActiveRatio) g.sm = v.value;
      if (v.metric == Metric::kTensorActiveRatio) g.tensor = v.value;
      if (v.metric == Metric::kDramActiveRatio) g.dram = v.value;
    }
    for (size_t i = 0; i < gpm.size(); ++i) {
      const GpmPass& g = gpm[i];
      if (g.dram < 0 || (g.sm < 0 && g.tensor < 0)) continue;
      slots[i].sm_or_tensor.push_back(std::max(g.sm, g.tensor));
      slots[i].dram.push_back(g.dram);
    }
  }
  for (Slot& slot : slots) {
    if (slot.newest == nullptr) continue;
    slot.entity = *slot.newest;
    for (Series& s : slot.profile.series) s.entity = slot.entity;
  }
  return slots;
}

}  // namespace

std::vector<GpuWindowAnalysis> AnalyzeWorkloadWindow(std::span<const SampleBatch* const> passes,
                                                     const std::vector<DeviceInfo>& devices,
                                                     const std::string& hostname) {
  std::vector<Slot> slots = CollectSlots(passes, devices, hostname);
  const pooling::PoolingOptions pooling_options;
  std::vector<GpuWindowAnalysis> out;
  std::vector<pooling::PodGpuUse> uses;
  std::vector<size_t> result_of_use;
  for (Slot& slot : slots) {
    if (slot.passes.empty()) continue;  // an entity without values in the window
    GpuWindowAnalysis& r = out.emplace_back();
    r.entity = slot.entity;
    r.passes = static_cast<int64_t>(slot.passes.size());
    r.window_s = static_cast<double>(slot.passes.back()->time_ns - slot.passes.front()->time_ns) / 1e9;
    if (auto bound = BoundFromGpmActivity(slot.sm_or_tensor, slot.dram)) {
      r.bound = bound->bound;
      r.bound_reason = bound->reason;
    }
    // The cluster analysis's own entry: characterize, derive the demand, name the GPU.
    std::vector<pooling::PodGpuUse> slot_uses =
        pooling::PodGpuUses(slot.profile, slot.entity.namespace_name, slot.entity.pod, nullptr);
    if (slot_uses.empty()) continue;
    const WorkloadDemand& demand = slot_uses.front().demand;
    r.workload_type = demand.workload_type;
    if (demand.gpu_busy.measured) r.gpu_util_p95 = demand.gpu_busy.p95;
    if (demand.memory_bytes.measured) r.memory_peak_bytes = demand.memory_bytes.max;
    if (!demand.busy_bins.empty()) {
      auto idle = std::count_if(demand.busy_bins.begin(), demand.busy_bins.end(),
                                [&](double b) { return b <= pooling_options.idle_busy_p95; });
      r.idle_ratio = static_cast<double>(idle) / static_cast<double>(demand.busy_bins.size());
    }
    // A GPU in MIG mode is judged by its instances, as the cluster analysis does.
    if (slot.entity.gpu_instance_id < 0 && InMigMode(slots, slot.entity)) continue;
    uses.push_back(std::move(slot_uses.front()));
    result_of_use.push_back(out.size() - 1);
  }
  // The node's GPUs together: sharing pairs uses, as across a cluster's pods.
  pooling::PoolingReport report = pooling::FindPoolingCandidates(uses, pooling_options);
  for (const pooling::PodRecommendation& rec : report.pods) {
    if (rec.use < 0 || static_cast<size_t>(rec.use) >= result_of_use.size()) continue;
    GpuWindowAnalysis& r = out[result_of_use[static_cast<size_t>(rec.use)]];
    r.pooling_action = pooling::PoolActionName(rec.action);
    r.pooling_detail = rec.detail;
  }
  return out;
}

}  // namespace kraken::agent
