#include "analysis/temporal/phase_windows.h"

#include <algorithm>

namespace kraken::temporal {
namespace {

// Maximal runs of phases where `inside` holds, joined across the end of the cycle.
std::vector<std::pair<size_t, size_t>> CircularRuns(const std::vector<bool>& inside) {
  size_t p = inside.size();
  std::vector<std::pair<size_t, size_t>> runs;  // start, length
  if (std::all_of(inside.begin(), inside.end(), [](bool b) { return b; })) return {{0, p}};
  size_t first_out = 0;
  while (inside[first_out]) ++first_out;
  // Walk one full turn starting just after a phase that is outside every run.
  size_t i = 0;
  while (i < p) {
    size_t k = (first_out + i) % p;
    if (!inside[k]) {
      ++i;
      continue;
    }
    size_t start = k, length = 0;
    while (i < p && inside[(first_out + i) % p]) {
      ++length;
      ++i;
    }
    runs.emplace_back(start, length);
  }
  return runs;
}

PhaseWindow MakeWindow(const std::vector<double>& profile, size_t start, size_t length, int64_t step,
                       const std::vector<double>& y, size_t first_phase, bool below) {
  size_t p = profile.size();
  std::vector<bool> in_window(p, false);
  PhaseWindow w;
  w.start = static_cast<int64_t>(start) * step;
  w.length = static_cast<int64_t>(length) * step;
  double sum = 0;
  for (size_t j = 0; j < length; ++j) {
    size_t k = (start + j) % p;
    in_window[k] = true;
    sum += profile[k];
  }
  w.mean_level = length ? sum / static_cast<double>(length) : 0;
  // Complete cycles: from the first point at phase 0.
  size_t first = (p - first_phase % p) % p;
  size_t cycles = 0, agreeing = 0;
  for (size_t c = first; c + p <= y.size(); c += p) {
    double all = 0, inside = 0;
    size_t n_inside = 0;
    for (size_t i = c; i < c + p; ++i) {
      all += y[i];
      if (in_window[(first_phase + i) % p]) {
        inside += y[i];
        ++n_inside;
      }
    }
    if (n_inside == 0) continue;
    double cycle_mean = all / static_cast<double>(p), window_mean = inside / static_cast<double>(n_inside);
    ++cycles;
    if (below ? window_mean < cycle_mean : window_mean > cycle_mean) ++agreeing;
  }
  w.recurrence = cycles ? static_cast<double>(agreeing) / static_cast<double>(cycles) : 0;
  return w;
}

// Circular box average over +-half_width phases: what the window thresholds look at, so
// that noise on the profile does not split one idle night into three.
std::vector<double> SmoothCircular(const std::vector<double>& profile, size_t half_width) {
  size_t p = profile.size();
  if (half_width == 0 || p == 0) return profile;
  std::vector<double> out(p, 0.0);
  for (size_t k = 0; k < p; ++k) {
    double sum = 0;
    for (size_t j = 0; j <= 2 * half_width; ++j) sum += profile[(k + p + j - half_width % p) % p];
    out[k] = sum / static_cast<double>(2 * half_width + 1);
  }
  return out;
}

// Joins runs (in cycle order) that are at most `gap` phases apart, across the cycle's end too.
std::vector<std::pair<size_t, size_t>> MergeCloseRuns(std::vector<std::pair<size_t, size_t>> runs, size_t p,
                                                      size_t gap) {
  if (gap == 0 || runs.size() < 2) return runs;
  std::sort(runs.begin(), runs.end());
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& run : runs) {
    if (!out.empty() && run.first <= out.back().first + out.back().second + gap) {
      out.back().second = run.first + run.second - out.back().first;
    } else {
      out.push_back(run);
    }
  }
  if (out.size() >= 2) {
    auto& last = out.back();
    auto& first = out.front();
    if (first.first + p <= last.first + last.second + gap) {  // the last run reaches round to the first
      last.second = first.first + p + first.second - last.first;
      out.erase(out.begin());
    }
  }
  for (auto& run : out) {
    run.first %= p;
    run.second = std::min(run.second, p);
  }
  return out;
}

}  // namespace

void FillPhaseWindows(const std::vector<double>& y, size_t first_phase, int64_t step, const PeriodicityOptions& o,
                      PeriodicityResult* r) {
  const std::vector<double>& profile = r->profile;
  size_t p = profile.size();
  std::vector<double> smooth =
      SmoothCircular(profile, static_cast<size_t>(static_cast<double>(p) * o.window_smoothing));
  auto [lo_it, hi_it] = std::minmax_element(smooth.begin(), smooth.end());
  double lo = *lo_it, range = *hi_it - *lo_it;
  if (range <= 0) return;
  std::vector<bool> high(p), idle(p);
  for (size_t k = 0; k < p; ++k) {
    double level = (smooth[k] - lo) / range;
    high[k] = level >= o.peak_level;
    idle[k] = level <= o.idle_level;
  }
  auto gap = static_cast<size_t>(static_cast<double>(p) * o.window_merge_gap);
  size_t argmax = static_cast<size_t>(hi_it - smooth.begin());
  for (auto [start, length] : MergeCloseRuns(CircularRuns(high), p, gap)) {
    bool holds_max = (argmax + p - start) % p < length;
    if (holds_max) r->peak = MakeWindow(profile, start, length, step, y, first_phase, false);
  }
  for (auto [start, length] : MergeCloseRuns(CircularRuns(idle), p, gap))
    r->idle_windows.push_back(MakeWindow(profile, start, length, step, y, first_phase, true));
}

}  // namespace kraken::temporal
