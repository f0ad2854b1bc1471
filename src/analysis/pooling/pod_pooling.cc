#include "analysis/pooling/pod_pooling.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/mig/mig_plan.h"
#include "model/device_catalog.h"
#include "model/mig_catalog.h"

namespace kraken::pooling {
namespace {

std::string Percent(double ratio) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", ratio * 100);
  return buffer;
}

std::string GpuKey(const PodGpuUse& use) {
  return use.gpu_uuid.empty() ? use.node + "#" + std::to_string(use.demand.gpu_index) : use.gpu_uuid;
}

double DeviceMemory(const PodGpuUse& use) {
  if (use.demand.device_memory_bytes > 0) return use.demand.device_memory_bytes;
  return use.device != nullptr ? static_cast<double>(use.device->memory_bytes) : 0;
}

// Busy share the idle test reads: utilization (or GR engine activity) when sampled.
double BusyP95(const PodGpuUse& use, const GpuNeed& need) {
  return use.demand.gpu_busy.measured ? use.demand.gpu_busy.p95 : need.compute_p95;
}

// First-fit decreasing by compute p95 into GPUs whose summed compute p95 and memory
// peaks stay under the caps.
std::vector<PoolGroup> PackShared(const std::vector<PodGpuUse>& uses, const std::vector<PodRecommendation>& recs,
                                  const std::vector<int>& members, const PoolingOptions& o) {
  std::vector<int> order = members;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return recs[a].need.compute_p95 > recs[b].need.compute_p95; });
  std::vector<PoolGroup> bins;
  for (int i : order) {
    double memory_cap = o.share_memory_cap * DeviceMemory(uses[i]);
    PoolGroup* target = nullptr;
    for (PoolGroup& bin : bins) {
      if (bin.compute_p95_sum + recs[i].need.compute_p95 <= o.share_compute_cap &&
          bin.memory_bytes_sum + recs[i].need.memory_bytes <= memory_cap) {
        target = &bin;
        break;
      }
    }
    if (target == nullptr) {
      target = &bins.emplace_back();
      target->device_id = uses[i].device != nullptr ? uses[i].device->id : "";
      target->action = PoolAction::kShare;
    }
    target->uses.push_back(i);
    target->compute_p95_sum += recs[i].need.compute_p95;
    target->memory_bytes_sum += recs[i].need.memory_bytes;
  }
  return bins;
}


// Where a pod goes after the per-pod rules: decided on its own (its action is set), or
// into the MIG or the sharing pool of its GPU model, whose packing decides it.
enum class PodRoute { kDecided, kMigPool, kSharePool };

// The per-pod rules, in order: no utilization -> unknown, idle -> reclaim, already on a
// slice or busy -> keep; otherwise a MIG-capable GPU with measured memory goes to the MIG
// pool, another with measured memory to the sharing pool, and the rest is kept.
PodRoute ClassifyPod(const PodGpuUse& use, const PoolingOptions& o, PodRecommendation* rec) {
  rec->need = EstimateGpuNeed(use.demand);
  rec->explanation = ExplainGpuNeed(rec->need);
  double busy = BusyP95(use, rec->need);
  double memory_share =
      rec->need.memory_measured && DeviceMemory(use) > 0 ? rec->need.memory_bytes / DeviceMemory(use) : 0;
  rec->explanation.Input("busy p95", busy, "ratio",
                         use.demand.gpu_busy.measured ? use.demand.gpu_busy.basis : rec->need.compute_basis);
  rec->explanation.Term(
      "idle test", busy <= o.idle_busy_p95 ? 1 : 0, "",
      "busy p95 <= " + Percent(o.idle_busy_p95) + " and memory <= " + Percent(o.idle_memory_share) + " of the GPU");
  if (!rec->need.compute_measured) {
    rec->action = PoolAction::kUnknown;
    rec->detail = "no utilization series (DCGM_FI_DEV_GPU_UTIL or DCGM_FI_PROF_GR_ENGINE_ACTIVE/SM_ACTIVE)";
  } else if (busy <= o.idle_busy_p95 && memory_share <= o.idle_memory_share) {
    rec->action = PoolAction::kReclaim;
    rec->detail = "idle: busy p95 " + Percent(busy) +
                  (rec->need.memory_measured ? ", memory " + Percent(memory_share) : ", memory not measured");
  } else if (!use.mig_profile.empty()) {
    rec->action = PoolAction::kKeep;
    rec->detail = "already in MIG slice " + use.mig_profile;
  } else if (rec->need.compute_p95 > o.dedicated_busy_p95) {
    rec->action = PoolAction::kKeep;
    rec->detail = "busy: compute p95 " + Percent(rec->need.compute_p95) + " > " + Percent(o.dedicated_busy_p95);
  } else if (use.device != nullptr && FindMigGeometry(use.device->id) != nullptr && rec->need.memory_measured) {
    return PodRoute::kMigPool;
  } else if (rec->need.memory_measured && DeviceMemory(use) > 0) {
    return PodRoute::kSharePool;
  } else {
    rec->action = PoolAction::kKeep;
    rec->detail = "memory not measured (DCGM_FI_DEV_FB_USED): a slice or share cannot be sized";
  }
  return PodRoute::kDecided;
}

// Plans MIG slices for the pods of one MIG-capable GPU model (`members`, indexes into
// uses): each pod's slice or the reason it keeps its GPU, and one group per packed GPU.
// Returns the GPUs the slices need.
int PlanMigPool(const std::vector<PodGpuUse>& uses, const std::string& device_id, const std::vector<int>& members,
                const PoolingOptions& o, PoolingReport* report) {
  const MigGeometry* geometry = FindMigGeometry(device_id);
  std::vector<mig::MigWorkload> workloads;
  for (int i : members) workloads.push_back(mig::MigWorkloadFromDemand(uses[i].demand));
  mig::MigPlanOptions plan_options;
  plan_options.memory_headroom = o.memory_headroom;
  plan_options.max_slowdown = o.max_slowdown;
  mig::MigPlan plan = mig::PlanMig(workloads, *geometry, plan_options);
  for (size_t k = 0; k < members.size(); ++k) {
    PodRecommendation& rec = report->pods[members[k]];
    const mig::MigChoice& choice = plan.choices[k];
    rec.explanation.Append(choice.explanation);
    if (choice.sliced && choice.profile >= 0) {
      rec.action = PoolAction::kMigSlice;
      rec.detail = geometry->profiles[choice.profile].name + " (" + choice.reason + ")";
    } else {
      rec.action = PoolAction::kKeep;
      rec.detail = "not sliced: " + choice.reason;
    }
  }
  for (const mig::PackedGpu& gpu : plan.packing.gpus) {
    PoolGroup& group = report->groups.emplace_back();
    group.device_id = device_id;
    group.action = PoolAction::kMigSlice;
    for (size_t slot = 0; slot < gpu.items.size(); ++slot) {
      int use = members[gpu.items[slot]];
      group.uses.push_back(use);
      int profile = plan.choices[gpu.items[slot]].profile;
      group.mig_profiles.push_back(profile >= 0 ? geometry->profiles[profile].name : "");
      group.compute_p95_sum += report->pods[use].need.compute_p95;
      group.memory_bytes_sum += report->pods[use].need.memory_bytes;
    }
  }
  return plan.gpus_for_slices;
}

// Packs the pods of one GPU model's sharing pool (`members`) onto shared GPUs: a pod
// alone in its bin keeps its GPU, the others share one per group. Returns the groups
// formed (one GPU each).
int PlanSharePool(const std::vector<PodGpuUse>& uses, const std::vector<int>& members, const PoolingOptions& o,
                  PoolingReport* report) {
  int groups_formed = 0;
  for (const PoolGroup& bin : PackShared(uses, report->pods, members, o)) {
    bool alone = bin.uses.size() == 1;
    for (int i : bin.uses) {
      PodRecommendation& rec = report->pods[i];
      rec.explanation.Term("shared GPU compute p95 sum", bin.compute_p95_sum, "ratio",
                           "sum of the group's compute p95 <= " + Percent(o.share_compute_cap));
      rec.explanation.Term("shared GPU memory sum", bin.memory_bytes_sum, "B",
                           "sum of the group's memory peaks <= " + Percent(o.share_memory_cap) + " of the GPU");
      rec.action = alone ? PoolAction::kKeep : PoolAction::kShare;
      // Numbered by the group this bin is about to become.
      rec.detail = alone ? "no partner fits beside it" : "GPU group " + std::to_string(report->groups.size() + 1);
    }
    if (!alone) {
      report->groups.push_back(bin);
      ++groups_formed;
    }
  }
  return groups_formed;
}

// Any pod that keeps or shares a whole GPU may also fit a smaller model.
void SuggestSmallerGpus(const std::vector<PodGpuUse>& uses, const PoolingOptions& o, PoolingReport* report) {
  for (size_t i = 0; i < uses.size(); ++i) {
    PodRecommendation& rec = report->pods[i];
    if (rec.action == PoolAction::kReclaim || rec.action == PoolAction::kUnknown || !uses[i].mig_profile.empty())
      continue;
    rec.smaller_gpu = SmallerGpuFor(uses[i], rec.need, o);
    if (rec.smaller_gpu != nullptr) {
      rec.explanation.Term("smaller GPU " + rec.smaller_gpu->id, rec.smaller_gpu->fp32_flops_per_s, "FLOP/s",
                           "FP32 peak x " + Percent(o.smaller_gpu_max_load) + " >= compute p95 x current FP32 peak");
    }
  }
}

// The GPU counts before and after: GPUs that a pod keeps stay; those of pooled pods are
// repacked onto `pooled_after` GPUs; the rest are idle and reclaimed.
void CountGpus(const std::vector<PodGpuUse>& uses, int pooled_after, PoolingReport* report) {
  std::set<std::string> all_gpus, kept_gpus, pooled_gpus;
  for (size_t i = 0; i < uses.size(); ++i) {
    all_gpus.insert(GpuKey(uses[i]));
    PoolAction a = report->pods[i].action;
    if (a == PoolAction::kKeep || a == PoolAction::kUnknown) kept_gpus.insert(GpuKey(uses[i]));
    if (a == PoolAction::kMigSlice || a == PoolAction::kShare) pooled_gpus.insert(GpuKey(uses[i]));
  }
  for (const std::string& gpu : kept_gpus) pooled_gpus.erase(gpu);
  report->gpus_now = static_cast<int>(all_gpus.size());
  int pooled_before = static_cast<int>(pooled_gpus.size());
  if (pooled_after > pooled_before) pooled_after = pooled_before;  // never advise more GPUs than now
  report->gpus_reclaimed = report->gpus_now - static_cast<int>(kept_gpus.size()) - pooled_before;
  report->gpus_after = static_cast<int>(kept_gpus.size()) + pooled_after;
  report->gpus_saved = report->gpus_now - report->gpus_after;
}
}  // namespace

const DeviceSpec* SmallerGpuFor(const PodGpuUse& use, const GpuNeed& need, const PoolingOptions& o) {
  const DeviceSpec* current = use.device;
  if (current == nullptr || current->fp32_flops_per_s <= 0 || !need.compute_measured || !need.memory_measured)
    return nullptr;
  double flops_need = need.compute_p95 * current->fp32_flops_per_s;
  double dram_need = use.demand.dram_active.measured ? use.demand.dram_active.p95 * current->dram_bytes_per_s : 0;
  double memory_need = need.memory_bytes * (1 + o.memory_headroom);
  const DeviceSpec* best = nullptr;
  for (const DeviceSpec& d : DeviceCatalog()) {
    // Smaller means both: less FP32 peak and no more memory (an older card with more
    // memory, a V100 32 GB for an L4 24 GB, is not a smaller GPU).
    if (d.vendor != Vendor::kNvidia || d.fp32_flops_per_s <= 0 || d.fp32_flops_per_s >= current->fp32_flops_per_s ||
        d.memory_bytes > current->memory_bytes)
      continue;
    if (d.fp32_flops_per_s * o.smaller_gpu_max_load < flops_need) continue;
    if (d.dram_bytes_per_s * o.smaller_gpu_max_load < dram_need) continue;
    if (static_cast<double>(d.memory_bytes) < memory_need) continue;
    if (best == nullptr || d.fp32_flops_per_s < best->fp32_flops_per_s) best = &d;
  }
  return best;
}

const char* PoolActionName(PoolAction action) {
  switch (action) {
    case PoolAction::kReclaim:
      return "reclaim";
    case PoolAction::kMigSlice:
      return "mig-slice";
    case PoolAction::kShare:
      return "share";
    case PoolAction::kKeep:
      return "keep";
    case PoolAction::kUnknown:
      return "unknown";
  }
  return "unknown";
}

PoolingReport FindPoolingCandidates(const std::vector<PodGpuUse>& uses, const PoolingOptions& o) {
  PoolingReport report;
  report.max_slowdown = o.max_slowdown;
  std::map<std::string, std::vector<int>> mig_candidates, share_candidates;  // by device id
  for (size_t i = 0; i < uses.size(); ++i) {
    const PodGpuUse& use = uses[i];
    PodRecommendation& rec = report.pods.emplace_back();
    rec.use = static_cast<int>(i);
    PodRoute route = ClassifyPod(use, o, &rec);
    if (route == PodRoute::kMigPool) mig_candidates[use.device->id].push_back(static_cast<int>(i));
    if (route == PodRoute::kSharePool)
      share_candidates[use.device != nullptr ? use.device->id : ""].push_back(static_cast<int>(i));
  }
  // MIG pools are planned before sharing pools: the sharing groups are numbered after
  // the MIG groups in report.groups.
  int pooled_after = 0;
  for (const auto& [device_id, members] : mig_candidates)
    pooled_after += PlanMigPool(uses, device_id, members, o, &report);
  for (const auto& [device_id, members] : share_candidates) pooled_after += PlanSharePool(uses, members, o, &report);
  SuggestSmallerGpus(uses, o, &report);
  CountGpus(uses, pooled_after, &report);
  report.assumptions = {
      "demand is the p95 over the queried range; a pod whose load grows needs a new analysis",
      "pods sharing a GPU (MPS or time-slicing) interfere; see `kraken colocate` before acting",
      "a GPU held by any pod that must keep it is not counted as freed",
  };
  if (!mig_candidates.empty())
    report.assumptions.push_back("a MIG slice is recommended only where its expected slowdown is at most " +
                                 Percent(o.max_slowdown) +
                                 " (--max-slowdown; not checked where the pod's busy time is not measured)");
  return report;
}

}  // namespace kraken::pooling
