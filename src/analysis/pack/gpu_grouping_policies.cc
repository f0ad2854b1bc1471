// Two heuristics that group GPU pods, as defined in the FGD paper's simulator (integer
// arithmetic as there; MaxNodeScore = 100, 8000 = the largest node's GPU milli):
//   GpuClustering: prefer nodes already running pods of the same GPU-request class
//     (sharing, or k whole GPUs): only that class 75..100, that class among others
//     50..75, an idle node 25..50, other classes 0..25; within a band, fuller is better.
//   GpuPacking: prefer, in order, already-shared GPUs (the less free the better), then
//     whole GPUs on a node already in use, then a node whose GPUs are all free.
// CPU-only pods score 0 everywhere with both, so they go to the node of lowest rank.
#include <algorithm>
#include <bit>

#include "analysis/pack/policy.h"

namespace kraken::pack {
namespace {

constexpr int64_t kMaxScore = 100;
constexpr int64_t kMaxSpecGpuMilli = 8000;

struct ClusteringParts {
  int64_t band_base = 0;  // 0, 25, 50 or 75
  int64_t fullness = 0;   // 25 (8000 - free GPU milli) / 8000
  const char* band = "";
};

ClusteringParts Clustering(const NodeState& n, const PodShape& pod) {
  ClusteringParts parts;
  parts.fullness = kMaxScore / 4 * (kMaxSpecGpuMilli - n.gpu_free_total) / kMaxSpecGpuMilli;
  const uint32_t mine = AffinityClassBit(pod);
  if (n.affinity_classes & mine) {
    const bool only_mine = std::popcount(n.affinity_classes) == 1;
    parts.band_base = only_mine ? kMaxScore * 3 / 4 : kMaxScore * 2 / 4;
    parts.band = only_mine ? "node runs only pods of this class" : "node runs this class among others";
  } else if (n.affinity_classes == 0) {
    parts.band_base = kMaxScore / 4;
    parts.band = "node runs no GPU pod";
  } else {
    parts.band = "node runs only other classes";
  }
  return parts;
}

class GpuClusteringPolicy final : public PackingPolicy {
 public:
  std::string_view name() const override { return "GpuClustering"; }

  double Score(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    if (pod.num_gpu == 0) return 0;
    ClusteringParts parts = Clustering(state.node(node), pod);
    return static_cast<double>(parts.band_base + parts.fullness);
  }

  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return SelectBestFitGpus(state.node(node), pod);
  }

  ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const override {
    ScoreExplanation e;
    e.gpus = SelectBestFitGpus(state.node(node), pod);
    if (pod.num_gpu == 0) {
      e.parts.push_back({"CPU-only pod", 0, "scores 0 on every node"});
      return e;
    }
    ClusteringParts parts = Clustering(state.node(node), pod);
    e.score = static_cast<double>(parts.band_base + parts.fullness);
    e.parts = {{"band", static_cast<double>(parts.band_base), parts.band},
               {"fullness", static_cast<double>(parts.fullness), "25 (8000 - free GPU milli) / 8000, integer"}};
    return e;
  }

  std::string Assumptions() const override {
    return "GpuClustering: GPU-request classes are sharing or k whole GPUs; bands 75/50/25/0 as in the reference "
           "plugin plus 25 x used fraction of 8 GPUs (integer arithmetic); CPU-only pods score 0; best-fit GPUs.";
  }
};

struct PackingParts {
  int64_t score = 0;
  const char* rule = "";
  int64_t whole_gpus_used = 0;
  int64_t free_pct_of_used = 0;  // sum over the shared GPUs used of free milli x 100 / 1000
};

PackingParts Packing(const NodeState& n, const PodShape& pod) {
  PackingParts parts;
  if (pod.gpu_milli <= 0) {
    parts.rule = "CPU-only pod: 0 everywhere";
    return parts;
  }
  if (n.whole_free_gpus == n.gpu_count) {
    parts.rule = "all GPUs of the node free: 33 - free GPUs";
    parts.score = std::max<int64_t>(kMaxScore / 3 - n.whole_free_gpus, n.whole_free_gpus);
    return parts;
  }
  // The GPUs the pod would use: the least free ones that fit, in a stable ascending order.
  int32_t order[kMaxGpusPerNode];
  for (int32_t g = 0; g < n.gpu_count; ++g) order[g] = g;
  std::stable_sort(order, order + n.gpu_count, [&](int32_t a, int32_t b) { return n.gpu_free[a] < n.gpu_free[b]; });
  int32_t wanted = pod.num_gpu;
  for (int32_t i = 0; i < n.gpu_count && wanted > 0; ++i) {
    const int32_t free = n.gpu_free[order[i]];
    if (free < pod.gpu_milli) continue;
    --wanted;
    if (free == kMilliPerGpu) ++parts.whole_gpus_used;
    parts.free_pct_of_used += free * 100 / kMilliPerGpu;
  }
  if (wanted > 0) {
    parts.rule = "does not fit";
    return parts;
  }
  if (parts.whole_gpus_used > 0) {
    parts.rule = "whole GPUs on a node in use: 50 - whole GPUs used";
    parts.score = std::max<int64_t>(kMaxScore / 2 - parts.whole_gpus_used, kMaxScore / 3);
    return parts;
  }
  parts.rule = "shared GPU: 100 - (free % of the GPU used) / 10";
  parts.score = std::max<int64_t>(kMaxScore - parts.free_pct_of_used / 10, kMaxScore / 2);
  return parts;
}

class GpuPackingPolicy final : public PackingPolicy {
 public:
  std::string_view name() const override { return "GpuPacking"; }

  double Score(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return static_cast<double>(Packing(state.node(node), pod).score);
  }

  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return SelectBestFitGpus(state.node(node), pod);
  }

  ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const override {
    PackingParts parts = Packing(state.node(node), pod);
    ScoreExplanation e;
    e.score = static_cast<double>(parts.score);
    e.gpus = SelectBestFitGpus(state.node(node), pod);
    e.parts = {{"rule", static_cast<double>(parts.score), parts.rule},
               {"whole GPUs used", static_cast<double>(parts.whole_gpus_used), ""},
               {"free % of the GPUs used", static_cast<double>(parts.free_pct_of_used), "integer"}};
    return e;
  }

  std::string Assumptions() const override {
    return "GpuPacking: shared GPUs score 50..100 (less free is better), whole GPUs on a node in use 33..50, a node "
           "with all GPUs free 25..33 (fewer GPUs is better); CPU-only pods score 0; best-fit GPUs.";
  }
};

}  // namespace

std::unique_ptr<PackingPolicy> MakeGpuClusteringPolicy() { return std::make_unique<GpuClusteringPolicy>(); }
std::unique_ptr<PackingPolicy> MakeGpuPackingPolicy() { return std::make_unique<GpuPackingPolicy>(); }

}  // namespace kraken::pack
