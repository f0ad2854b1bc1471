// Kraken's packing policy (docs/packing.md): place each pod where it costs the least
// future capacity, counting two kinds of loss in GPU milli:
//   stranding: GPU milli the node can no longer feed with CPU or memory, at the CPU and
//     memory per GPU milli of the original pod list's GPU pods:
//       stranded = gpu_free - min(gpu_free, cpu_free / cpu_per_milli, mem_free / mem_per_milli)
//   packing: for a sharing pod, the bin-packing LP loss of the GPU it takes
//     (packing_prices.h), plus 50 milli when it opens a whole free GPU, which whole-GPU
//     pods would otherwise get.
// cost = (stranded after - stranded before) + packing loss; score = floor(-cost / 40).
// Costs within the same 40-milli band are equal, and equal scores go to the node of
// lowest rank: a fixed order, so the cluster fills node after node (first fit) and keeps
// whole nodes free for multi-GPU pods. A sharing pod tries every GPU it fits and takes
// the first with the best score. Online: one pod at a time, from the current state and
// statistics of the original pod list only (like FGD's typical pods).
#include <bit>
#include <cmath>
#include <cstdio>

#include "analysis/pack/packing_prices.h"
#include "analysis/pack/policy.h"

namespace kraken::pack {
namespace {

constexpr double kBandMilli = 40;
constexpr double kOpenWholeGpuMilli = 50;

struct Ratios {
  double cpu_per_milli = 0;  // CPU milli per GPU milli of the GPU pods
  double mem_per_milli = 0;  // memory MiB per GPU milli
};

Ratios PodListRatios(const std::vector<PodRequest>& pods) {
  double cpu = 0, mem = 0, milli = 0;
  for (const PodRequest& p : pods) {
    if (p.num_gpu == 0) continue;
    cpu += static_cast<double>(p.cpu_milli);
    mem += static_cast<double>(p.memory_mib);
    milli += static_cast<double>(p.TotalGpuMilli());
  }
  if (milli <= 0) return {};
  return {cpu / milli, mem / milli};
}

struct Cost {
  double stranded_before = 0, stranded_after = 0;
  int32_t gap = 0;  // free milli of the GPU a sharing pod takes, before
  double packing_loss = 0;
  double open_penalty = 0;
  double total = 0;
  double score = 0;
  GpuMask gpus = 0;
};

class KrakenPolicy final : public PackingPolicy {
 public:
  explicit KrakenPolicy(const PackProblem& problem)
      : ratios_(PodListRatios(problem.pods)), prices_(ComputePackingPrices(problem.typical)) {}

  std::string_view name() const override { return "Kraken"; }

  double Score(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return Choose(state.node(node), pod).score;
  }

  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return Choose(state.node(node), pod).gpus;
  }

  ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const override {
    Cost c = Choose(state.node(node), pod);
    ScoreExplanation e;
    e.score = c.score;
    e.gpus = c.gpus;
    char note[128];
    std::snprintf(note, sizeof(note), "at %.2f CPU milli and %.2f MiB per GPU milli", ratios_.cpu_per_milli,
                  ratios_.mem_per_milli);
    e.parts.push_back({"stranded GPU milli before", c.stranded_before, note});
    e.parts.push_back({"stranded GPU milli after", c.stranded_after, ""});
    if (pod.IsGpuSharing()) {
      std::snprintf(note, sizeof(note), "price(%d) = %.3f GPU, gap value %.3f -> %.3f", pod.gpu_milli,
                    prices_.Price(pod.gpu_milli), prices_.gap_value[static_cast<size_t>(c.gap)],
                    prices_.gap_value[static_cast<size_t>(c.gap - pod.gpu_milli)]);
      e.parts.push_back({"GPU free milli before", static_cast<double>(c.gap), "of the GPU taken"});
      e.parts.push_back({"packing loss", c.packing_loss, note});
      e.parts.push_back({"opens a whole GPU", c.open_penalty, "50 milli when a sharing pod takes a free GPU"});
    }
    e.parts.push_back({"cost", c.total, "stranded change + packing loss, GPU milli; score = floor(-cost / 40)"});
    return e;
  }

  std::string Assumptions() const override {
    char text[512];
    std::snprintf(text, sizeof(text),
                  "Kraken: cost = change in GPU milli stranded for lack of CPU or memory (at the pod list's %.2f CPU "
                  "milli and %.2f MiB per GPU milli) + the packing loss of a sharing pod (LP dual prices of the %zu "
                  "typical sharing sizes, %d patterns; +50 milli to open a whole GPU); score = floor(-cost / 40); "
                  "ties go to the lowest-rank node (first fit). Online: no knowledge of future pods.",
                  ratios_.cpu_per_milli, ratios_.mem_per_milli, prices_.sizes.size(), prices_.patterns);
    return text;
  }

 private:
  double Stranded(int64_t cpu_free, int64_t mem_free, double gpu_free) const {
    double feedable = gpu_free;
    if (ratios_.cpu_per_milli > 0) feedable = std::min(feedable, static_cast<double>(cpu_free) / ratios_.cpu_per_milli);
    if (ratios_.mem_per_milli > 0) feedable = std::min(feedable, static_cast<double>(mem_free) / ratios_.mem_per_milli);
    return gpu_free - std::max(0.0, feedable);
  }

  Cost Evaluate(const NodeState& n, const PodShape& pod, GpuMask gpus, double stranded_before) const {
    Cost c;
    c.gpus = gpus;
    c.stranded_before = stranded_before;
    const double gpu_after = n.gpu_free_total - static_cast<double>(pod.TotalGpuMilli());
    c.stranded_after = Stranded(n.cpu_free - pod.cpu_milli, n.memory_free - pod.memory_mib, gpu_after);
    if (pod.IsGpuSharing() && gpus != 0) {
      c.gap = n.gpu_free[std::countr_zero(static_cast<unsigned>(gpus))];
      c.packing_loss = prices_.Loss(c.gap, pod.gpu_milli);
      if (c.gap == kMilliPerGpu) c.open_penalty = kOpenWholeGpuMilli;
    }
    c.total = (c.stranded_after - c.stranded_before) + c.packing_loss + c.open_penalty;
    c.score = std::floor(-c.total / kBandMilli) + 0.0;  // + 0.0: no "-0"
    return c;
  }

  // The best GPU choice on the node; the first of equally scored GPUs.
  Cost Choose(const NodeState& n, const PodShape& pod) const {
    const double before = Stranded(n.cpu_free, n.memory_free, n.gpu_free_total);
    if (!pod.IsGpuSharing())
      return Evaluate(n, pod, pod.num_gpu == 0 ? GpuMask{0} : SelectWholeGpus(n, pod.num_gpu), before);
    Cost best;
    bool have = false;
    for (int32_t g = 0; g < n.gpu_count; ++g) {
      if (n.gpu_free[g] < pod.gpu_milli) continue;
      Cost c = Evaluate(n, pod, static_cast<GpuMask>(1u << g), before);
      if (!have || c.score > best.score) {
        best = c;
        have = true;
      }
    }
    return best;
  }

  Ratios ratios_;
  PackingPrices prices_;
};

}  // namespace

std::unique_ptr<PackingPolicy> MakeKrakenPolicy(const PackProblem& problem) {
  return std::make_unique<KrakenPolicy>(problem);
}

}  // namespace kraken::pack
