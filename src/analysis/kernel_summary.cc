#include "analysis/kernel_summary.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <map>
#include <unordered_map>

#include "base/text.h"

namespace kraken {

Boundness BoundMix::Dominant() const {
  TimeNs classified = classified_ns();
  if (classified <= 0) return Boundness::kUnknown;
  std::array<std::pair<TimeNs, Boundness>, 4> shares = {{{compute_ns, Boundness::kCompute},
                                                         {memory_ns, Boundness::kMemory},
                                                         {latency_ns, Boundness::kLatency},
                                                         {mixed_ns, Boundness::kMixed}}};
  for (const auto& [ns, bound] : shares)
    if (2 * ns >= classified) return bound;
  return Boundness::kMixed;
}

double BoundMix::Pct(TimeNs part) const {
  TimeNs total = total_ns();
  return total > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(total) : 0;
}

bool NameUsesTensorCores(std::string_view name) {
  // Markers in the names of tensor-core (NVIDIA) and matrix-core (AMD MFMA) kernels:
  // cuBLAS/cuDNN tile shapes (volta_h884gemm, turing_s1688gemm, ampere_s16816gemm,
  // i8816), CUTLASS "tensorop", NVIDIA "xmma"/"wgmma"/"hmma"/"imma"/"nvjet", AMD
  // Tensile's matrix-instruction field ("..._MI16x16x1_..."), MIOpen xdlops igemm
  // ("gtcx"), "mfma", and attention kernels built on MMA (flash/fmha/Triton attn_fwd).
  // A heuristic: a kernel using tensor cores with none of these in its name is missed.
  static constexpr std::array<std::string_view, 17> kMarkers = {
      "wgmma", "hmma", "imma", "mfma", "xmma", "nvjet", "884", "1688", "16816", "8816",
      "flash_fwd", "flash_bwd", "fmha", "attn_fwd", "attn_bwd", "gtcx", "xdlops"};
  std::string lower = ToLower(name);
  for (std::string_view marker : kMarkers)
    if (lower.find(marker) != std::string::npos) return true;
  // "tensorop" but not MIOpen's "SubTensorOp" (an elementwise tensor operation).
  for (size_t pos = lower.find("tensorop"); pos != std::string::npos; pos = lower.find("tensorop", pos + 1))
    if (pos < 3 || lower.compare(pos - 3, 3, "sub") != 0) return true;
  // Tensile: "_MI<m>x<n>x..." names the matrix instruction a GEMM kernel uses.
  for (size_t pos = lower.find("_mi"); pos != std::string::npos; pos = lower.find("_mi", pos + 1)) {
    size_t i = pos + 3, digits = 0;
    while (i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i]))) ++i, ++digits;
    if (digits > 0 && i < lower.size() && lower[i] == 'x') return true;
  }
  return false;
}

namespace {

int64_t GridBlocks(const Dim3& grid) {
  if (grid[0] <= 0) return 0;
  return static_cast<int64_t>(grid[0]) * std::max(grid[1], 1) * std::max(grid[2], 1);
}

bool IsMeasured(ClassificationBasis basis) {
  return basis == ClassificationBasis::kRoofline || basis == ClassificationBasis::kThroughput ||
         basis == ClassificationBasis::kFixedThresholds;
}

struct GroupAccumulator {
  int64_t count = 0;
  TimeNs total_ns = 0;
  TimeNs min_ns = INT64_MAX;
  TimeNs max_ns = 0;
  bool tensor = false;
  // Time per class within the group, to pick the group's representative class.
  std::map<Boundness, TimeNs> time_by_class;
  std::map<Boundness, KernelClassification> example;
};

using KernelGroups = std::unordered_map<StringId, GroupAccumulator>;
// Name-only classifications depend on (name, grid size): cache them.
using NameClassificationCache = std::map<std::pair<StringId, int64_t>, KernelClassification>;

const KernelCounters* CountersOfKernel(const Profile& profile, const Kernel& k) {
  return k.counters_index >= 0 && static_cast<size_t>(k.counters_index) < profile.kernel_counters.size()
             ? &profile.kernel_counters[static_cast<size_t>(k.counters_index)]
             : nullptr;
}

KernelClassification ClassifyLaunch(StringId name, const KernelLaunchInfo& launch, const KernelCounters* counters,
                                    const DeviceSpec* spec, const ClassifyOptions& options,
                                    NameClassificationCache& name_cache) {
  if (counters != nullptr) return ClassifyKernel(launch, counters, spec, options);
  auto key = std::make_pair(name, launch.grid_blocks);
  auto it = name_cache.find(key);
  if (it == name_cache.end()) it = name_cache.emplace(key, ClassifyKernel(launch, nullptr, spec, options)).first;
  return it->second;
}

void AddToBoundMix(const KernelClassification& cls, TimeNs duration_ns, bool tensor, BoundMix& mix) {
  switch (cls.bound) {
    case Boundness::kCompute: mix.compute_ns += duration_ns; break;
    case Boundness::kMemory: mix.memory_ns += duration_ns; break;
    case Boundness::kLatency: mix.latency_ns += duration_ns; break;
    case Boundness::kMixed: mix.mixed_ns += duration_ns; break;
    case Boundness::kUnknown: mix.unknown_ns += duration_ns; break;
  }
  if (tensor) mix.tensor_core_ns += duration_ns;
  if (IsMeasured(cls.basis)) mix.measured_basis_ns += duration_ns;
  if (cls.basis == ClassificationBasis::kNameHeuristic) mix.name_basis_ns += duration_ns;
}

void AddToGroup(KernelClassification&& cls, TimeNs duration_ns, bool tensor, GroupAccumulator& g) {
  ++g.count;
  g.total_ns += duration_ns;
  g.min_ns = std::min(g.min_ns, duration_ns);
  g.max_ns = std::max(g.max_ns, duration_ns);
  g.tensor = g.tensor || tensor;
  g.time_by_class[cls.bound] += duration_ns;
  g.example.emplace(cls.bound, std::move(cls));
}

// Ties broken by name so the output is deterministic.
std::vector<std::pair<StringId, const GroupAccumulator*>> TopKernelGroups(const KernelGroups& groups,
                                                                          const Profile& profile, size_t top_n) {
  std::vector<std::pair<StringId, const GroupAccumulator*>> order;
  order.reserve(groups.size());
  for (const auto& [name, g] : groups) order.emplace_back(name, &g);
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.second->total_ns != b.second->total_ns) return a.second->total_ns > b.second->total_ns;
    return profile.Name(a.first) < profile.Name(b.first);
  });
  if (order.size() > top_n) order.resize(top_n);
  return order;
}

KernelGroupStats StatsOfGroup(std::string_view name, const GroupAccumulator& g, TimeNs kernel_time_ns) {
  KernelGroupStats stats;
  stats.name = std::string(name);
  stats.count = g.count;
  stats.total_ns = g.total_ns;
  stats.min_ns = g.min_ns;
  stats.max_ns = g.max_ns;
  stats.mean_ns = static_cast<double>(g.total_ns) / static_cast<double>(g.count);
  stats.pct_of_kernel_time =
      kernel_time_ns > 0 ? 100.0 * static_cast<double>(g.total_ns) / static_cast<double>(kernel_time_ns) : 0;
  Boundness best = Boundness::kUnknown;
  TimeNs best_ns = -1;
  for (const auto& [bound, ns] : g.time_by_class) {
    if (ns > best_ns) {
      best = bound;
      best_ns = ns;
    }
  }
  stats.classification = g.example.at(best);
  stats.uses_tensor_cores = g.tensor;
  return stats;
}

}  // namespace

KernelSummary SummarizeKernels(const Profile& profile, const DeviceSpec* spec, int32_t sm_count,
                               const KernelSummaryOptions& options) {
  KernelSummary summary;
  KernelGroups groups;
  NameClassificationCache name_cache;
  std::unordered_map<StringId, bool> tensor_cache;

  for (const Kernel& k : profile.kernels) {
    if (options.window && (k.start_ns < options.window->start_ns || k.start_ns > options.window->end_ns)) continue;
    ++summary.kernel_count;
    summary.kernel_time_ns += k.duration_ns;
    const KernelCounters* counters = CountersOfKernel(profile, k);
    KernelLaunchInfo launch;
    launch.name = profile.Name(k.name);
    launch.duration_ns = k.duration_ns;
    launch.grid_blocks = GridBlocks(k.grid);
    launch.device_sm_count = sm_count;
    KernelClassification cls = ClassifyLaunch(k.name, launch, counters, spec, options.classify, name_cache);
    auto tc = tensor_cache.find(k.name);
    if (tc == tensor_cache.end()) tc = tensor_cache.emplace(k.name, NameUsesTensorCores(launch.name)).first;
    bool tensor = tc->second || (counters != nullptr && counters->tensor_flops.value_or(0) > 0);

    AddToBoundMix(cls, k.duration_ns, tensor, summary.mix);
    AddToGroup(std::move(cls), k.duration_ns, tensor, groups[k.name]);
  }

  summary.distinct_names = static_cast<int64_t>(groups.size());
  for (const auto& [name, g] : TopKernelGroups(groups, profile, options.top_n))
    summary.top.push_back(StatsOfGroup(profile.Name(name), *g, summary.kernel_time_ns));
  return summary;
}

}  // namespace kraken
