// Two policies that compare a node's free (CPU, GPU) vector with the pod's request, both
// normalised by the largest node of the reference (128 vCPU, 8 GPUs):
//   DotProd (Tetris-style alignment): score = 1 - (free . request) / 2; the node whose
//     free vector is least aligned with the request (the fullest one) wins.
//   BestFit: score = 1 - sum_i 0.5 (free_i - request_i) / max_i; the node left with the
//     least free resource wins.
// Both as the reference's int64 scores (x100, truncated); GPUs chosen by best fit.
#include <cmath>

#include "analysis/pack/policy.h"

namespace kraken::pack {
namespace {

constexpr double kMaxSpecCpuMilli = 128000;  // the reference's MaxSpecCpu
constexpr double kMaxSpecGpuMilli = 8000;    // the reference's MaxSpecGpu

struct Normalised {
  double node_cpu, node_gpu, pod_cpu, pod_gpu;
};

Normalised Normalise(const NodeState& n, const PodShape& pod) {
  return {static_cast<double>(n.cpu_free) / kMaxSpecCpuMilli, static_cast<double>(n.gpu_free_total) / kMaxSpecGpuMilli,
          static_cast<double>(pod.cpu_milli) / kMaxSpecCpuMilli,
          static_cast<double>(pod.TotalGpuMilli()) / kMaxSpecGpuMilli};
}

class DotProductPolicy final : public PackingPolicy {
 public:
  std::string_view name() const override { return "DotProd"; }

  double Score(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    Normalised v = Normalise(state.node(node), pod);
    const double dot = (v.node_cpu * v.pod_cpu + v.node_gpu * v.pod_gpu) / 2;
    return std::trunc(100 * (1 - dot));
  }

  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return SelectBestFitGpus(state.node(node), pod);
  }

  ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const override {
    Normalised v = Normalise(state.node(node), pod);
    ScoreExplanation e;
    PackRng unused;
    e.score = Score(state, node, pod, unused);
    e.gpus = SelectBestFitGpus(state.node(node), pod);
    e.parts = {
        {"free CPU / 128 vCPU", v.node_cpu, ""},
        {"free GPU / 8 GPUs", v.node_gpu, "all GPUs of the node merged"},
        {"request CPU / 128 vCPU", v.pod_cpu, ""},
        {"request GPU / 8 GPUs", v.pod_gpu, ""},
        {"dot product / 2", (v.node_cpu * v.pod_cpu + v.node_gpu * v.pod_gpu) / 2, "score = trunc(100 (1 - this))"}};
    return e;
  }

  std::string Assumptions() const override {
    return "DotProd: score = trunc(100 (1 - (free . request) / 2)) with (CPU, GPU) normalised by 128 vCPU and 8 GPUs "
           "(dimExt=merge, norm=max); best-fit GPU selection.";
  }
};

// Σ_i 0.5 (free_i - request_i) / max_i in the reference's order of operations, so that
// the truncation to an integer score falls the same way.
double WeightedLeft(const NodeState& n, const PodShape& pod) {
  double left = 0;
  left += static_cast<double>(n.cpu_free - pod.cpu_milli) / kMaxSpecCpuMilli * 0.5;
  left += static_cast<double>(n.gpu_free_total - pod.TotalGpuMilli()) / kMaxSpecGpuMilli * 0.5;
  return left;
}

class BestFitPolicy final : public PackingPolicy {
 public:
  std::string_view name() const override { return "BestFit"; }

  double Score(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    const double left = WeightedLeft(state.node(node), pod);
    // The reference min-max normalises these scores afterwards; that keeps the set of
    // highest-scoring nodes, so it is left out.
    return std::trunc(100 * (1 - left));
  }

  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return SelectBestFitGpus(state.node(node), pod);
  }

  ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const override {
    Normalised v = Normalise(state.node(node), pod);
    ScoreExplanation e;
    PackRng unused;
    e.score = Score(state, node, pod, unused);
    e.gpus = SelectBestFitGpus(state.node(node), pod);
    e.parts = {{"CPU left after / 128 vCPU", v.node_cpu - v.pod_cpu, "weight 0.5"},
               {"GPU left after / 8 GPUs", v.node_gpu - v.pod_gpu, "weight 0.5"},
               {"weighted left", WeightedLeft(state.node(node), pod), "score = trunc(100 (1 - this))"}};
    return e;
  }

  std::string Assumptions() const override {
    return "BestFit: score = trunc(100 (1 - sum_i 0.5 (free_i - request_i) / max_i)) over CPU (max 128 vCPU) and GPU "
           "(max 8 GPUs, all GPUs of the node merged); best-fit GPU selection.";
  }
};

}  // namespace

std::unique_ptr<PackingPolicy> MakeDotProductPolicy() { return std::make_unique<DotProductPolicy>(); }
std::unique_ptr<PackingPolicy> MakeBestFitPolicy() { return std::make_unique<BestFitPolicy>(); }

}  // namespace kraken::pack
