#include "analysis/step_kernels.h"

#include <algorithm>
#include <unordered_map>

namespace kraken {

std::vector<StepKernelTable> SummarizeKernelsPerStep(const Profile& profile, const std::vector<StepWindowRef>& steps,
                                                     size_t top_n) {
  // Kernel indices by start time (the importers sort, other sources may not).
  std::vector<size_t> order(profile.kernels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return profile.kernels[a].start_ns < profile.kernels[b].start_ns; });
  std::vector<StepKernelTable> out;
  for (const StepWindowRef& step : steps) {
    StepKernelTable table;
    table.step_number = step.step_number;
    table.window = step.window;
    std::unordered_map<StringId, StepKernelRow> rows;
    auto first = std::lower_bound(order.begin(), order.end(), step.window.start_ns,
                                  [&](size_t i, TimeNs t) { return profile.kernels[i].start_ns < t; });
    for (auto it = first; it != order.end() && profile.kernels[*it].start_ns < step.window.end_ns; ++it) {
      const Kernel& k = profile.kernels[*it];
      StepKernelRow& row = rows[k.name];
      ++row.count;
      row.total_ns += std::max<TimeNs>(0, k.duration_ns);
      ++table.kernels;
      table.kernel_time_ns += std::max<TimeNs>(0, k.duration_ns);
    }
    for (auto& [name, row] : rows) {
      row.name = std::string(profile.Name(name));
      row.pct_of_step_kernel_time =
          table.kernel_time_ns > 0 ? 100.0 * static_cast<double>(row.total_ns) / static_cast<double>(table.kernel_time_ns) : 0;
      table.top.push_back(std::move(row));
    }
    std::sort(table.top.begin(), table.top.end(), [](const StepKernelRow& a, const StepKernelRow& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    if (table.top.size() > top_n) table.top.resize(top_n);
    out.push_back(std::move(table));
  }
  return out;
}

}  // namespace kraken
