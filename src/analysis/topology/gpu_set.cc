#include "analysis/topology/gpu_set.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace kraken::topology {
namespace {

constexpr double kGbpsTolerance = 1e-9;

// (a, b) -> link; a < b.
using LinkIndex = std::map<std::pair<int, int>, const GpuPairLink*>;

int PathDistance(const GpuPairLink* link) {
  if (link == nullptr) return 5;
  if (link->path.rfind("NV", 0) == 0) return 0;
  static constexpr const char* kLevels[] = {"PIX", "PXB", "PHB", "NODE"};
  for (int i = 0; i < 4; ++i)
    if (link->path == kLevels[i]) return i + 1;
  return 5;
}

LinkIndex IndexLinks(const NodeGpuTopology& topology) {
  LinkIndex index;
  for (const GpuPairLink& l : topology.links) index[{std::min(l.a, l.b), std::max(l.a, l.b)}] = &l;
  return index;
}

GpuSetChoice Evaluate(const NodeGpuTopology& topology, const LinkIndex& links, const std::vector<int>& gpus) {
  GpuSetChoice c;
  c.found = true;
  c.gpus = gpus;
  std::sort(c.gpus.begin(), c.gpus.end());
  std::set<int> numa;
  for (int g : c.gpus)
    for (const TopologyGpu& gpu : topology.gpus)
      if (gpu.index == g && gpu.numa_node >= 0) numa.insert(gpu.numa_node);
  c.numa_nodes = static_cast<int>(numa.size());
  c.all_nvlink = c.gpus.size() > 1;
  bool first = true;
  for (size_t i = 0; i < c.gpus.size(); ++i)
    for (size_t j = i + 1; j < c.gpus.size(); ++j) {
      auto it = links.find({c.gpus[i], c.gpus[j]});
      const GpuPairLink* l = it == links.end() ? nullptr : it->second;
      double gbps = l ? l->gbps : 0;
      c.bottleneck_gbps = first ? gbps : std::min(c.bottleneck_gbps, gbps);
      first = false;
      c.total_gbps += gbps;
      c.path_distance += PathDistance(l);
      if (l && (l->pcie_path == "PIX" || l->pcie_path == "PXB")) ++c.shared_switch_pairs;
      if (!l || l->path.rfind("NV", 0) != 0) c.all_nvlink = false;
    }
  return c;
}

// True when `a` ranks before `b` (the order of gpu_set.h).
bool Better(const GpuSetChoice& a, const GpuSetChoice& b) {
  if (!b.found) return a.found;
  if (std::abs(a.bottleneck_gbps - b.bottleneck_gbps) > kGbpsTolerance) return a.bottleneck_gbps > b.bottleneck_gbps;
  if (a.numa_nodes != b.numa_nodes) return a.numa_nodes < b.numa_nodes;
  if (a.path_distance != b.path_distance) return a.path_distance < b.path_distance;
  if (a.shared_switch_pairs != b.shared_switch_pairs) return a.shared_switch_pairs < b.shared_switch_pairs;
  if (std::abs(a.total_gbps - b.total_gbps) > kGbpsTolerance) return a.total_gbps > b.total_gbps;
  return a.gpus < b.gpus;
}

std::vector<int> FreeGpus(const NodeGpuTopology& topology) {
  std::vector<int> free;
  for (const TopologyGpu& g : topology.gpus)
    if (g.free) free.push_back(g.index);
  std::sort(free.begin(), free.end());
  return free;
}

long Combinations(long n, long k) {
  long c = 1;
  for (long i = 1; i <= k; ++i) {
    c = c * (n - k + i) / i;
    if (c > kMaxExhaustiveSets) return c;
  }
  return c;
}

// Every k-subset of `free` (lexicographic), keeping the best.
void SearchAll(const NodeGpuTopology& topology, const LinkIndex& links, const std::vector<int>& free, int k,
               GpuSetChoice* best) {
  std::vector<int> pick(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) pick[static_cast<size_t>(i)] = i;
  std::vector<int> set(static_cast<size_t>(k));
  const int n = static_cast<int>(free.size());
  while (true) {
    for (int i = 0; i < k; ++i) set[static_cast<size_t>(i)] = free[static_cast<size_t>(pick[static_cast<size_t>(i)])];
    GpuSetChoice c = Evaluate(topology, links, set);
    if (Better(c, *best)) *best = std::move(c);
    int i = k - 1;
    while (i >= 0 && pick[static_cast<size_t>(i)] == n - k + i) --i;
    if (i < 0) return;
    ++pick[static_cast<size_t>(i)];
    for (int j = i + 1; j < k; ++j) pick[static_cast<size_t>(j)] = pick[static_cast<size_t>(j - 1)] + 1;
  }
}

// Large nodes: from each free GPU, add the GPU that keeps the set best, k - 1 times.
void SearchGreedy(const NodeGpuTopology& topology, const LinkIndex& links, const std::vector<int>& free, int k,
                  GpuSetChoice* best) {
  for (int seed : free) {
    std::vector<int> set{seed};
    while (static_cast<int>(set.size()) < k) {
      GpuSetChoice step;
      for (int g : free) {
        if (std::find(set.begin(), set.end(), g) != set.end()) continue;
        std::vector<int> grown = set;
        grown.push_back(g);
        GpuSetChoice c = Evaluate(topology, links, grown);
        if (Better(c, step)) step = std::move(c);
      }
      set = step.gpus;
    }
    GpuSetChoice c = Evaluate(topology, links, set);
    if (Better(c, *best)) *best = std::move(c);
  }
}

}  // namespace

GpuSetChoice EvaluateGpuSet(const NodeGpuTopology& topology, const std::vector<int>& gpus) {
  return Evaluate(topology, IndexLinks(topology), gpus);
}

GpuSetChoice BestGpuSet(const NodeGpuTopology& topology, int count) {
  std::vector<int> free = FreeGpus(topology);
  GpuSetChoice best;
  if (count <= 0 || static_cast<size_t>(count) > free.size()) return best;
  LinkIndex links = IndexLinks(topology);
  if (Combinations(static_cast<long>(free.size()), count) <= kMaxExhaustiveSets)
    SearchAll(topology, links, free, count, &best);
  else
    SearchGreedy(topology, links, free, count, &best);
  return best;
}

GpuSetChoice BlindGpuSet(const NodeGpuTopology& topology, int count) {
  std::vector<int> free = FreeGpus(topology);
  if (count <= 0 || static_cast<size_t>(count) > free.size()) return {};
  free.resize(static_cast<size_t>(count));
  return EvaluateGpuSet(topology, free);
}

std::string FormatGpuSet(const std::vector<int>& gpus) {
  std::string out;
  for (int g : gpus) {
    if (!out.empty()) out += ',';
    out += std::to_string(g);
  }
  return out;
}

}  // namespace kraken::topology
