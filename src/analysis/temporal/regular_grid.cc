#include "analysis/temporal/regular_grid.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace kraken::temporal {
namespace {

std::vector<Sample> SortedFinite(const std::vector<Sample>& samples) {
  std::vector<Sample> out;
  out.reserve(samples.size());
  for (const Sample& s : samples)
    if (std::isfinite(s.value)) out.push_back(s);
  auto by_time = [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; };
  if (!std::is_sorted(out.begin(), out.end(), by_time)) std::stable_sort(out.begin(), out.end(), by_time);
  return out;
}

}  // namespace

int64_t NativeStep(const std::vector<Sample>& samples) {
  std::vector<int64_t> gaps;
  gaps.reserve(samples.size());
  for (size_t i = 1; i < samples.size(); ++i) {
    int64_t d = samples[i].time_ns - samples[i - 1].time_ns;
    if (d > 0) gaps.push_back(d);
  }
  if (gaps.empty()) return 0;
  auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return *mid;
}

Result<RegularGrid> ResampleToGrid(const std::vector<Sample>& input, const GridOptions& options) {
  std::vector<Sample> samples = SortedFinite(input);
  RegularGrid grid;
  grid.step = options.step > 0 ? options.step : NativeStep(samples);
  if (grid.step <= 0) return InvalidInput("fewer than two distinct sample times: no time step");
  grid.start = samples.front().time_ns;
  // Span / step in floating point first: the subtraction of two int64 times is safe, the
  // count must be checked before any allocation.
  double span_steps = static_cast<double>(samples.back().time_ns - grid.start) / static_cast<double>(grid.step);
  if (span_steps + 1 > static_cast<double>(options.max_points))
    return InvalidInput("the series would need " + std::to_string(static_cast<int64_t>(span_steps)) +
                        " grid points (more than " + std::to_string(options.max_points) + ")");
  size_t n = static_cast<size_t>(std::llround(span_steps)) + 1;
  std::vector<double> sum(n, 0.0);
  std::vector<uint32_t> count(n, 0);
  for (const Sample& s : samples) {
    int64_t offset = s.time_ns - grid.start;
    // Nearest point, written so that offset + step / 2 cannot overflow.
    int64_t nearest = offset / grid.step + ((offset % grid.step) >= grid.step - grid.step / 2 ? 1 : 0);
    size_t i = static_cast<size_t>(nearest);
    if (i >= n) i = n - 1;
    if (count[i] > 0) ++grid.merged_samples;
    sum[i] += s.value;
    ++count[i];
  }
  grid.samples = samples.size();
  grid.values.assign(n, 0.0);
  grid.observed.assign(n, 0);
  size_t previous = 0;  // last observed index; index 0 always holds the first sample
  for (size_t i = 0; i < n; ++i) {
    if (count[i] == 0) continue;
    grid.values[i] = sum[i] / count[i];
    grid.observed[i] = 1;
    if (i > previous + 1) {
      size_t gap = i - previous - 1;
      grid.filled_points += gap;
      grid.longest_gap_points = std::max(grid.longest_gap_points, gap);
      double a = grid.values[previous], b = grid.values[i];
      for (size_t j = previous + 1; j < i; ++j)
        grid.values[j] = a + (b - a) * static_cast<double>(j - previous) / static_cast<double>(i - previous);
    }
    previous = i;
  }
  return grid;
}

RegularGrid Coarsen(const RegularGrid& grid, size_t factor) {
  if (factor <= 1) return grid;
  RegularGrid out;
  out.start = grid.start;
  out.step = grid.step * static_cast<int64_t>(factor);
  out.samples = grid.samples;
  out.merged_samples = grid.merged_samples;
  out.filled_points = grid.filled_points;
  out.longest_gap_points = grid.longest_gap_points;
  for (size_t i = 0; i < grid.size(); i += factor) {
    size_t end = std::min(grid.size(), i + factor);
    double sum = 0;
    uint8_t any = 0;
    for (size_t j = i; j < end; ++j) {
      sum += grid.values[j];
      any |= grid.observed[j];
    }
    out.values.push_back(sum / static_cast<double>(end - i));
    out.observed.push_back(any);
  }
  return out;
}

}  // namespace kraken::temporal
