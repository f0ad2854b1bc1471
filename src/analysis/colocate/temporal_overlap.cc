#include "analysis/colocate/temporal_overlap.h"

#include <algorithm>
#include <cmath>

#include "base/text_table.h"

namespace kraken {

double DetectPeriodSeconds(const std::vector<double>& bins, double bin_s, double min_autocorr) {
  const size_t n = bins.size();
  if (n < 8 || bin_s <= 0) return 0;
  double mean = 0;
  for (double b : bins) mean += b;
  mean /= static_cast<double>(n);
  double variance = 0;
  for (double b : bins) variance += (b - mean) * (b - mean);
  if (variance <= 1e-12) return 0;  // flat: no period to speak of
  auto autocorr = [&](size_t lag) {
    double sum = 0;
    for (size_t k = 0; k + lag < n; ++k) sum += (bins[k] - mean) * (bins[k + lag] - mean);
    // Normalised by the overlapping length so that long lags are not penalised.
    return sum / variance * static_cast<double>(n) / static_cast<double>(n - lag);
  };
  // At least two repeats must fit in the profile.
  double previous = autocorr(1), current = autocorr(2);
  for (size_t lag = 2; lag + 1 <= n / 2; ++lag) {
    double next = autocorr(lag + 1);
    if (current >= min_autocorr && current >= previous && current >= next) return static_cast<double>(lag) * bin_s;
    previous = current;
    current = next;
  }
  return 0;
}

std::vector<double> Rebin(const std::vector<double>& bins, double bin_s, double target_s) {
  if (bin_s <= 0 || target_s <= bin_s * 1.5) return bins;
  size_t group = static_cast<size_t>(std::llround(target_s / bin_s));
  std::vector<double> out;
  for (size_t start = 0; start + group <= bins.size(); start += group) {
    double sum = 0;
    for (size_t k = start; k < start + group; ++k) sum += bins[k];
    out.push_back(sum / static_cast<double>(group));
  }
  return out;
}

namespace {

// Lowest mean of a_k * b_(k+s) over the relative shifts s of one period of b.
double LowestOverlap(const std::vector<double>& a, const std::vector<double>& b, size_t period_bins) {
  double best = 1e300;
  size_t shifts = std::min(b.size(), std::max<size_t>(period_bins, 1));
  for (size_t s = 0; s < shifts; ++s) {
    double sum = 0;
    for (size_t k = 0; k < a.size(); ++k) sum += a[k] * b[(k + s) % b.size()];
    best = std::min(best, sum / static_cast<double>(a.size()));
  }
  return best;
}

}  // namespace

CollisionEstimate EstimateCollision(const ColocationWorkload& a, const ColocationWorkload& b,
                                    const ColocationParameters& params) {
  CollisionEstimate e;
  e.random_phase = std::clamp(b.busy, 0.0, 1.0);
  e.locked_phase = e.random_phase;
  e.q = e.random_phase;
  e.basis = "phases unrelated: P(" + b.name + " busy) = its busy fraction " + FormatFixed(b.busy, 3);
  bool periodic = a.period_s > 0 && b.period_s > 0 && !a.busy_bins.empty() && !b.busy_bins.empty() &&
                  a.bin_s > 0 && b.bin_s > 0 && a.busy > 0;
  if (!periodic) return e;
  double ratio = a.period_s / b.period_s;
  if (std::abs(ratio - 1.0) > params.period_match_tolerance) {
    e.basis += " (periods " + FormatFixed(a.period_s * 1e3, 1) + " and " + FormatFixed(b.period_s * 1e3, 1) +
               " ms differ: phases drift)";
    return e;
  }
  double width = std::max(a.bin_s, b.bin_s);
  std::vector<double> ra = Rebin(a.busy_bins, a.bin_s, width);
  std::vector<double> rb = Rebin(b.busy_bins, b.bin_s, width);
  if (ra.empty() || rb.empty()) return e;
  double mean_a = 0;
  for (double v : ra) mean_a += v;
  mean_a /= static_cast<double>(ra.size());
  if (mean_a <= 0) return e;
  size_t period_bins = static_cast<size_t>(std::llround(b.period_s / width));
  // Scaled to the measured busy fractions, since rebinning at the edges can shift the means.
  double overlap = LowestOverlap(ra, rb, period_bins);
  e.locked_phase = std::clamp(overlap / mean_a, 0.0, 1.0);
  // Under time-slicing the phases settle where a's busy bins meet b's bins without any work.
  std::vector<double> active_b(rb.size());
  for (size_t k = 0; k < rb.size(); ++k) active_b[k] = rb[k] > 0 ? 1.0 : 0.0;
  e.locked_active = std::clamp(LowestOverlap(ra, active_b, period_bins) / mean_a, 0.0, 1.0);
  e.phase_locked = true;
  e.q = e.locked_phase;
  e.basis = "periods match (" + FormatFixed(a.period_s * 1e3, 1) + " / " + FormatFixed(b.period_s * 1e3, 1) +
            " ms): round-robin settles at the phase of least overlap, P(" + b.name + " busy | " + a.name +
            " busy) = " + FormatFixed(e.locked_phase, 3) + " (unrelated phases: " + FormatFixed(e.random_phase, 3) + ")";
  return e;
}

double ActiveShare(const ColocationWorkload& w) {
  if (w.busy_bins.empty()) return std::clamp(w.busy, 0.0, 1.0);
  double active = 0;
  for (double b : w.busy_bins) active += b > 0 ? 1 : 0;
  return std::max(w.busy, active / static_cast<double>(w.busy_bins.size()));
}

double BacklogHoldSeconds(double busy, double active, double slice_s, double switch_s) {
  if (active <= 0 || busy <= 0) return 0;
  double intensity = std::min(1.0, busy / active);
  if (intensity >= 0.5) return slice_s;
  return std::min(slice_s, intensity / (1 - intensity) * (slice_s + 2 * switch_s));
}

}  // namespace kraken
