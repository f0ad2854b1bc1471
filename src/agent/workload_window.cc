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

bool SameEntity(const SeriesEntity& a, const SeriesEntity& b) { return KeyOf(a) == KeyOf(b); }

const SeriesEntity* ValidEntity(const SampleBatch& batch, const SampleBatch::Value& v) {
  if (v.entity < 0 || static_cast<size_t>(v.entity) >= batch.entities.size()) return nullptr;
  const SeriesEntity& e = batch.entities[static_cast<size_t>(v.entity)];
  return e.pid >= 0 ? nullptr : &e;
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
  std::vector<const SampleBatch*> passes;  // those with values of the entity
  std::vector<double> sm_or_tensor, dram;
};

bool InMigMode(const std::vector<Slot>& slots, const SeriesEntity& gpu) {
  return std::any_of(slots.begin(), slots.end(), [&](const Slot& s) {
    return s.entity.gpu_instance_id >= 0 && s.entity.gpu_index == gpu.gpu_index &&
           s.entity.gpu_uuid == gpu.gpu_uuid;
  });
}

}  // namespace

Profile WindowProfile(std::span<const SampleBatch* const> passes, const SeriesEntity& entity,
                      const std::vector<DeviceInfo>& devices, const std::string& hostname) {
  Profile profile;
  profile.metadata.source = "kraken agent";
  profile.metadata.format = "nvml";
  profile.metadata.hostname = hostname;
  profile.metadata.accelerator_vendor = Vendor::kNvidia;
  for (const DeviceInfo& d : devices)
    if (!entity.gpu_uuid.empty() ? d.uuid == entity.gpu_uuid : d.index == entity.gpu_index)
      profile.devices.push_back(d);
  std::map<Metric, size_t> series_of;
  for (const SampleBatch* batch : passes) {
    if (batch == nullptr) continue;
    for (const SampleBatch::Value& v : batch->values) {
      if (v.metric == Metric::kOther) continue;
      const SeriesEntity* e = ValidEntity(*batch, v);
      if (e == nullptr || !SameEntity(*e, entity)) continue;
      auto [it, added] = series_of.emplace(v.metric, profile.series.size());
      if (added) {
        Series& s = profile.series.emplace_back();
        s.metric = v.metric;
        s.source_name = SourceNameOf(v.metric);
        s.entity = entity;
      }
      profile.series[it->second].samples.push_back({batch->time_ns, v.value});
    }
  }
  return profile;
}

std::vector<GpuWindowAnalysis> AnalyzeWorkloadWindow(std::span<const SampleBatch* const> passes,
                                                     const std::vector<DeviceInfo>& devices,
                                                     const std::string& hostname) {
  // The entities and, per pass, whether each had values (and its GPM activity).
  std::vector<Slot> slots;
  std::map<EntityKey, size_t> slot_of;
  for (const SampleBatch* batch : passes) {
    if (batch == nullptr) continue;
    std::map<size_t, GpmPass> gpm;  // by slot, this pass
    for (const SampleBatch::Value& v : batch->values) {
      const SeriesEntity* e = ValidEntity(*batch, v);
      if (e == nullptr) continue;
      auto [it, added] = slot_of.emplace(KeyOf(*e), slots.size());
      if (added) slots.emplace_back();
      Slot& slot = slots[it->second];
      slot.entity = *e;  // the newest pass names it
      if (slot.passes.empty() || slot.passes.back() != batch) slot.passes.push_back(batch);
      GpmPass& g = gpm[it->second];
      if (v.metric == Metric::kSmActiveRatio) g.sm = v.value;
      if (v.metric == Metric::kTensorActiveRatio) g.tensor = v.value;
      if (v.metric == Metric::kDramActiveRatio) g.dram = v.value;
    }
    for (const auto& [index, g] : gpm) {
      if (g.dram < 0 || (g.sm < 0 && g.tensor < 0)) continue;
      slots[index].sm_or_tensor.push_back(std::max(g.sm, g.tensor));
      slots[index].dram.push_back(g.dram);
    }
  }

  const pooling::PoolingOptions pooling_options;
  std::vector<GpuWindowAnalysis> out;
  std::vector<pooling::PodGpuUse> uses;
  std::vector<size_t> result_of_use;
  for (Slot& slot : slots) {
    GpuWindowAnalysis& r = out.emplace_back();
    r.entity = slot.entity;
    r.passes = static_cast<int64_t>(slot.passes.size());
    r.window_s = static_cast<double>(slot.passes.back()->time_ns - slot.passes.front()->time_ns) / 1e9;
    if (auto bound = BoundFromGpmActivity(slot.sm_or_tensor, slot.dram)) {
      r.bound = bound->bound;
      r.bound_reason = bound->reason;
    }
    Profile profile = WindowProfile(slot.passes, slot.entity, devices, hostname);
    // The cluster analysis's own entry: characterize, derive the demand, name the GPU.
    std::vector<pooling::PodGpuUse> slot_uses =
        pooling::PodGpuUses(profile, slot.entity.namespace_name, slot.entity.pod, nullptr);
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
