#include "analysis/pack/packing_prices.h"

#include <algorithm>
#include <map>

#include "analysis/pack/lp_simplex.h"

namespace kraken::pack {
namespace {

constexpr double kTolerance = 1e-9;
constexpr int kMaxCuts = 1000;

// Unbounded knapsack over capacities 0..1000: best[c] = most price fitting in c milli;
// last[c] = the size index that achieves it (-1: nothing added at c).
void Knapsack(const std::vector<int32_t>& sizes, const std::vector<double>& price, std::vector<double>* best,
              std::vector<int>* last) {
  best->assign(kMilliPerGpu + 1, 0.0);
  last->assign(kMilliPerGpu + 1, -1);
  for (int32_t c = 1; c <= kMilliPerGpu; ++c) {
    (*best)[c] = (*best)[c - 1];
    (*last)[c] = -2;  // same as c - 1
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] > c) break;  // ascending
      const double value = (*best)[c - sizes[i]] + price[i];
      if (value > (*best)[c] + kTolerance) {
        (*best)[c] = value;
        (*last)[c] = static_cast<int>(i);
      }
    }
  }
}

// The multiset behind best[capacity].
std::vector<double> Pattern(const std::vector<int32_t>& sizes, const std::vector<int>& last, int32_t capacity) {
  std::vector<double> counts(sizes.size(), 0.0);
  int32_t c = capacity;
  while (c > 0) {
    const int i = last[c];
    if (i == -1) break;
    if (i == -2) {
      --c;
      continue;
    }
    counts[static_cast<size_t>(i)] += 1;
    c -= sizes[static_cast<size_t>(i)];
  }
  return counts;
}

}  // namespace

double PackingPrices::Price(int32_t size) const {
  auto it = std::lower_bound(sizes.begin(), sizes.end(), size);
  if (it != sizes.end() && *it == size) return price[static_cast<size_t>(it - sizes.begin())];
  return size >= 0 && size <= kMilliPerGpu ? gap_value[static_cast<size_t>(size)] : 0;
}

double PackingPrices::Loss(int32_t gap, int32_t size) const {
  if (sizes.empty() || size <= 0 || size > gap || gap > kMilliPerGpu) return 0;
  const double lost = gap_value[static_cast<size_t>(gap)] - Price(size) - gap_value[static_cast<size_t>(gap - size)];
  return std::max(0.0, 1000.0 * lost);
}

PackingPrices ComputePackingPrices(const std::vector<TypicalPod>& typical) {
  PackingPrices prices;
  std::map<int32_t, double> by_size;
  double total = 0;
  for (const TypicalPod& t : typical) {
    if (t.num_gpu != 1 || t.gpu_milli <= 0 || t.gpu_milli >= kMilliPerGpu) continue;
    by_size[t.gpu_milli] += t.probability;
    total += t.probability;
  }
  prices.gap_value.assign(kMilliPerGpu + 1, 0.0);
  prices.gap_value[kMilliPerGpu] = 1.0;
  if (by_size.empty()) return prices;
  for (const auto& [size, p] : by_size) {
    prices.sizes.push_back(size);
    prices.demand.push_back(p / total);
  }
  const size_t n = prices.sizes.size();

  // Start from the single-size patterns (they bound every price), then add the most
  // violated pattern until none is violated.
  std::vector<std::vector<double>> rows;
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> row(n, 0.0);
    row[i] = static_cast<double>(kMilliPerGpu / prices.sizes[i]);
    rows.push_back(row);
  }
  std::vector<double> best;
  std::vector<int> last;
  LpSolution lp;
  for (int cut = 0; cut < kMaxCuts; ++cut) {
    lp = MaximizeLp(rows, std::vector<double>(rows.size(), 1.0), prices.demand);
    Knapsack(prices.sizes, lp.y, &best, &last);
    if (best[kMilliPerGpu] <= 1.0 + kTolerance) break;
    rows.push_back(Pattern(prices.sizes, last, kMilliPerGpu));
  }
  prices.price = lp.y;
  prices.patterns = static_cast<int32_t>(rows.size());
  prices.packed_gpus_per_pod = lp.objective;
  Knapsack(prices.sizes, prices.price, &best, &last);
  prices.gap_value = best;
  prices.gap_value[kMilliPerGpu] = 1.0;  // a whole free GPU is worth one GPU
  return prices;
}

}  // namespace kraken::pack
