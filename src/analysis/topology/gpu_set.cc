#include "analysis/topology/gpu_set.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace kraken::topology {
namespace {

constexpr double kGbpsTolerance = 1e-9;

int PathDistance(const GpuPairLink* link) {
  if (link == nullptr) return 5;
  if (link->path.rfind("NV", 0) == 0) return 0;
  static constexpr const char* kLevels[] = {"PIX", "PXB", "PHB", "NODE"};
  for (int i = 0; i < 4; ++i)
    if (link->path == kLevels[i]) return i + 1;
  return 5;
}

// Dense per-pair facts by GPU index, so that scoring a set is array reads (the extender
// scores thousands of nodes per request).
struct PairTable {
  int size = 0;  // highest GPU index + 1
  std::vector<int> numa;
  std::vector<double> gbps;
  std::vector<int> distance;
  std::vector<uint8_t> shared_switch, nvlink;
  size_t At(int a, int b) const { return static_cast<size_t>(a) * static_cast<size_t>(size) + static_cast<size_t>(b); }
};

PairTable MakeTable(const NodeGpuTopology& topology) {
  PairTable t;
  for (const TopologyGpu& g : topology.gpus) t.size = std::max(t.size, g.index + 1);
  for (const GpuPairLink& l : topology.links) t.size = std::max({t.size, l.a + 1, l.b + 1});
  const size_t cells = static_cast<size_t>(t.size) * static_cast<size_t>(t.size);
  t.numa.assign(static_cast<size_t>(t.size), -1);
  t.gbps.assign(cells, 0);
  t.distance.assign(cells, PathDistance(nullptr));
  t.shared_switch.assign(cells, 0);
  t.nvlink.assign(cells, 0);
  for (const TopologyGpu& g : topology.gpus)
    if (g.index >= 0) t.numa[static_cast<size_t>(g.index)] = g.numa_node;
  for (const GpuPairLink& l : topology.links) {
    if (l.a < 0 || l.b < 0) continue;
    for (size_t cell : {t.At(l.a, l.b), t.At(l.b, l.a)}) {
      t.gbps[cell] = l.gbps;
      t.distance[cell] = PathDistance(&l);
      t.shared_switch[cell] = l.pcie_path == "PIX" || l.pcie_path == "PXB";
      t.nvlink[cell] = l.path.rfind("NV", 0) == 0;
    }
  }
  return t;
}

GpuSetChoice Evaluate(const PairTable& t, const std::vector<int>& gpus) {
  GpuSetChoice c;
  c.found = true;
  c.gpus = gpus;
  std::sort(c.gpus.begin(), c.gpus.end());
  std::vector<int> numa;
  for (int g : c.gpus) {
    int n = g >= 0 && g < t.size ? t.numa[static_cast<size_t>(g)] : -1;
    if (n >= 0 && std::find(numa.begin(), numa.end(), n) == numa.end()) numa.push_back(n);
  }
  c.numa_nodes = static_cast<int>(numa.size());
  c.all_nvlink = c.gpus.size() > 1;
  bool first = true;
  for (size_t i = 0; i < c.gpus.size(); ++i)
    for (size_t j = i + 1; j < c.gpus.size(); ++j) {
      const int a = c.gpus[i], b = c.gpus[j];
      const bool known = a >= 0 && b >= 0 && a < t.size && b < t.size;
      const size_t cell = known ? t.At(a, b) : 0;
      double gbps = known ? t.gbps[cell] : 0;
      c.bottleneck_gbps = first ? gbps : std::min(c.bottleneck_gbps, gbps);
      first = false;
      c.total_gbps += gbps;
      c.path_distance += known ? t.distance[cell] : PathDistance(nullptr);
      if (known && t.shared_switch[cell]) ++c.shared_switch_pairs;
      if (!known || !t.nvlink[cell]) c.all_nvlink = false;
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
void SearchAll(const PairTable& table, const std::vector<int>& free, int k, GpuSetChoice* best) {
  std::vector<int> pick(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) pick[static_cast<size_t>(i)] = i;
  std::vector<int> set(static_cast<size_t>(k));
  const int n = static_cast<int>(free.size());
  while (true) {
    for (int i = 0; i < k; ++i) set[static_cast<size_t>(i)] = free[static_cast<size_t>(pick[static_cast<size_t>(i)])];
    GpuSetChoice c = Evaluate(table, set);
    if (Better(c, *best)) *best = std::move(c);
    int i = k - 1;
    while (i >= 0 && pick[static_cast<size_t>(i)] == n - k + i) --i;
    if (i < 0) return;
    ++pick[static_cast<size_t>(i)];
    for (int j = i + 1; j < k; ++j) pick[static_cast<size_t>(j)] = pick[static_cast<size_t>(j - 1)] + 1;
  }
}

// Large nodes: from up to kGreedySeeds free GPUs spread over the node, add the GPU that
// keeps the set best, k - 1 times (bounded: seeds x k x free x k^2 pair reads).
constexpr size_t kGreedySeeds = 8;

void SearchGreedy(const PairTable& table, const std::vector<int>& free, int k, GpuSetChoice* best) {
  const size_t stride = std::max<size_t>(1, free.size() / kGreedySeeds);
  for (size_t s = 0; s < free.size(); s += stride) {
    const int seed = free[s];
    std::vector<int> set{seed};
    while (static_cast<int>(set.size()) < k) {
      GpuSetChoice step;
      for (int g : free) {
        if (std::find(set.begin(), set.end(), g) != set.end()) continue;
        std::vector<int> grown = set;
        grown.push_back(g);
        GpuSetChoice c = Evaluate(table, grown);
        if (Better(c, step)) step = std::move(c);
      }
      set = step.gpus;
    }
    GpuSetChoice c = Evaluate(table, set);
    if (Better(c, *best)) *best = std::move(c);
  }
}

}  // namespace

GpuSetChoice EvaluateGpuSet(const NodeGpuTopology& topology, const std::vector<int>& gpus) {
  return Evaluate(MakeTable(topology), gpus);
}

GpuSetChoice BestGpuSet(const NodeGpuTopology& topology, int count) {
  std::vector<int> free = FreeGpus(topology);
  GpuSetChoice best;
  if (count <= 0 || static_cast<size_t>(count) > free.size()) return best;
  PairTable table = MakeTable(topology);
  if (Combinations(static_cast<long>(free.size()), count) <= kMaxExhaustiveSets)
    SearchAll(table, free, count, &best);
  else
    SearchGreedy(table, free, count, &best);
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
