#include "analysis/temporal/periodicity.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "analysis/temporal/phase_windows.h"
#include "base/text_table.h"

namespace kraken::temporal {
namespace {

constexpr size_t kMaxCandidatesKept = 8;

double Mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double Variance(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = Mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size());
}

// The smallest factor >= what max_points needs; when the native step divides the calendar
// unit, the factor also divides it (up to 4x more points than needed), so that a day is a
// whole number of analysis steps.
size_t ChooseCoarsenFactor(size_t n, int64_t step, const PeriodicityOptions& o) {
  size_t need = (n + o.max_analysis_points - 1) / std::max<size_t>(o.max_analysis_points, 1);
  if (need <= 1) return 1;
  if (o.calendar_unit > 0 && step > 0 && o.calendar_unit % step == 0) {
    auto steps_per_unit = static_cast<size_t>(o.calendar_unit / step);
    for (size_t k = need; k <= 4 * need && k <= steps_per_unit; ++k)
      if (steps_per_unit % k == 0) return k;
  }
  return need;
}

// Whether `long_lag` is a whole multiple (>= 2) of `short_lag`, allowing one step of
// rounding per repeat.
bool IsMultiple(size_t long_lag, size_t short_lag) {
  if (short_lag == 0) return false;
  size_t multiple = (long_lag + short_lag / 2) / short_lag;
  if (multiple < 2) return false;
  size_t product = multiple * short_lag;
  size_t error = product > long_lag ? product - long_lag : long_lag - product;
  return error <= multiple;
}

size_t PhaseOfFirstPoint(const RegularGrid& g, int64_t period) {
  int64_t phase = ((g.start % period) + period) % period;
  return static_cast<size_t>(phase / g.step);
}

// Classical decomposition at period p: trend = centered MA over one cycle (a 2 x p MA for
// even p), seasonal = mean detrended value per phase (centered), remainder = the rest.
struct Decomposition {
  std::vector<double> seasonal;  // per phase bin
  double strength = 0;
};

Decomposition Decompose(const std::vector<double>& y, size_t p, size_t first_phase) {
  Decomposition out;
  out.seasonal.assign(p, 0.0);
  size_t n = y.size(), half = p / 2;
  if (n < p + 1) return out;
  std::vector<double> prefix(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + y[i];
  std::vector<double> detrended;
  std::vector<size_t> phase_of;
  std::vector<double> sum(p, 0.0);
  std::vector<size_t> count(p, 0);
  for (size_t i = half; i + half < n; ++i) {
    double trend;
    if (p % 2 == 1) {
      trend = (prefix[i + half + 1] - prefix[i - half]) / static_cast<double>(p);
    } else {
      double inner = prefix[i + half] - prefix[i - half + 1];
      trend = (inner + 0.5 * (y[i - half] + y[i + half])) / static_cast<double>(p);
    }
    size_t phase = (first_phase + i) % p;
    detrended.push_back(y[i] - trend);
    phase_of.push_back(phase);
    sum[phase] += y[i] - trend;
    ++count[phase];
  }
  for (size_t k = 0; k < p; ++k) out.seasonal[k] = count[k] ? sum[k] / static_cast<double>(count[k]) : 0.0;
  double center = Mean(out.seasonal);
  for (double& s : out.seasonal) s -= center;
  std::vector<double> remainder(detrended.size());
  for (size_t i = 0; i < detrended.size(); ++i) remainder[i] = detrended[i] - out.seasonal[phase_of[i]];
  double total = Variance(detrended);
  out.strength = total > 0 ? std::max(0.0, 1.0 - Variance(remainder) / total) : 0.0;
  return out;
}

// The verdicts that need no autocorrelation: a constant series has nothing that repeats,
// and one mostly made of interpolated points would show the interpolation's shape. Sets
// r's verdict and reason and returns true when one applies.
bool RejectConstantOrSparseSeries(const RegularGrid& grid, const PeriodicityOptions& o, PeriodicityResult* r) {
  auto [lo, hi] = std::minmax_element(grid.values.begin(), grid.values.end());
  if (grid.values.empty() || *hi - *lo <= 1e-12 * std::max(1.0, std::fabs(*hi))) {
    r->verdict = PeriodVerdict::kConstant;
    r->reason = "the series is constant: nothing repeats";
    return true;
  }
  double filled_share = static_cast<double>(grid.filled_points) / static_cast<double>(grid.size());
  if (filled_share > o.max_filled_share) {
    r->verdict = PeriodVerdict::kTooSparse;
    r->reason = FormatFixed(100.0 * filled_share, 0) + "% of the grid points have no sample (only " +
                std::to_string(grid.size() - grid.filled_points) + " of " + std::to_string(grid.size()) +
                " observed): too sparse to tell a period";
    return true;
  }
  return false;
}

// Sets r's candidate lag range (analysis steps): a period must repeat min_cycles times in
// the n points and stay under max_period. Returns false, with verdict kTooShort, when the
// range is too narrow to hold a peak.
bool SetCandidateLagRange(size_t n, int64_t step, const PeriodicityOptions& o, PeriodicityResult* r) {
  r->min_lag = std::max<size_t>(o.min_period_points, 2);
  double by_cycles = static_cast<double>(n) / std::max(o.min_cycles, 1.0);
  r->max_lag = static_cast<size_t>(by_cycles);
  if (o.max_period > 0 && step > 0) r->max_lag = std::min<size_t>(r->max_lag, static_cast<size_t>(o.max_period / step));
  if (r->max_lag < r->min_lag + 2) {
    r->verdict = PeriodVerdict::kTooShort;
    r->reason = "too few points (" + std::to_string(n) + ") to see a period repeat " +
                std::to_string(static_cast<int>(o.min_cycles)) + " times";
    return false;
  }
  return true;
}

// Autocorrelation at lags 0..max_lag + 1 (one past the range, to tell a local maximum at
// max_lag) of y less its centered moving average over the longest candidate period.
std::vector<double> DetrendedAutocorrelation(const std::vector<double>& y, PeriodicityResult* r) {
  r->detrend_window = r->max_lag | 1;  // odd, so that the average is centered
  std::vector<double> trend = CenteredMovingAverage(y, r->detrend_window);
  std::vector<double> detrended(y.size());
  for (size_t i = 0; i < y.size(); ++i) detrended[i] = y[i] - trend[i];
  return Autocorrelation(detrended, r->max_lag + 1);
}

// The large-lag (Bartlett) band z * sqrt((1 + 2 sum_{j<k} r_j^2) / n) at every lag
// 1..max_lag + 1: how far r_k may stray from zero by chance given the shorter lags.
std::vector<double> BartlettBand(const std::vector<double>& acf, size_t max_lag, size_t n, double z) {
  std::vector<double> band(max_lag + 2, 0.0);
  double squares = 0;
  for (size_t k = 1; k <= max_lag + 1; ++k) {
    band[k] = z * std::sqrt((1.0 + 2.0 * squares) / static_cast<double>(n));
    squares += acf[k] * acf[k];
  }
  return band;
}

// The lag's autocorrelation, band and prominence (rise over the lowest r_j for j in
// [k/2, k]); strength and significance are left for the tests that need them.
PeriodCandidate MeasureLag(const std::vector<double>& acf, const std::vector<double>& band, size_t k) {
  PeriodCandidate c;
  c.lag = k;
  c.acf = acf[k];
  c.band = band[k];
  double trough = *std::min_element(acf.begin() + static_cast<std::ptrdiff_t>(k / 2),
                                    acf.begin() + static_cast<std::ptrdiff_t>(k + 1));
  c.prominence = acf[k] - trough;
  return c;
}

// Strength of seasonality F of the analysis series y at a lag of k analysis steps.
double SeasonalStrengthAtLag(const std::vector<double>& y, const RegularGrid& coarse, size_t k) {
  return Decompose(y, k, PhaseOfFirstPoint(coarse, static_cast<int64_t>(k) * coarse.step)).strength;
}

// A day and a week, when they are whole candidate lags of the analysis step, peak or not:
// what a "no daily period" verdict rests on.
std::vector<PeriodCandidate> MeasureCalendarLags(const std::vector<double>& acf, const std::vector<double>& band,
                                                 int64_t step, const PeriodicityOptions& o,
                                                 const PeriodicityResult& r) {
  std::vector<PeriodCandidate> lags;
  if (o.calendar_unit <= 0 || step <= 0) return lags;
  for (int64_t units : {int64_t{1}, int64_t{7}}) {
    int64_t span = units * o.calendar_unit;
    if (span % step != 0) continue;
    auto k = static_cast<size_t>(span / step);
    if (k < r.min_lag || k > r.max_lag) continue;
    lags.push_back(MeasureLag(acf, band, k));
  }
  return lags;
}

// Every local maximum of the autocorrelation in the candidate range, highest first; the
// ones that pass the band, min_acf and min_prominence get their strength of seasonality
// and are significant when it reaches min_strength.
std::vector<PeriodCandidate> FindPeakCandidates(const std::vector<double>& y, const RegularGrid& coarse,
                                                const std::vector<double>& acf, const std::vector<double>& band,
                                                const PeriodicityOptions& o, const PeriodicityResult& r) {
  std::vector<PeriodCandidate> candidates;
  for (size_t k = r.min_lag; k <= r.max_lag; ++k) {
    if (!(acf[k] >= acf[k - 1] && acf[k] > acf[k + 1])) continue;
    PeriodCandidate c = MeasureLag(acf, band, k);
    if (c.acf > c.band && c.acf >= o.min_acf && c.prominence >= o.min_prominence) {
      c.strength = SeasonalStrengthAtLag(y, coarse, k);
      c.significant = c.strength >= o.min_strength;
    }
    candidates.push_back(c);
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const PeriodCandidate& a, const PeriodCandidate& b) { return a.acf > b.acf; });
  return candidates;
}

// The significant candidate with the highest autocorrelation, or null when none is.
const PeriodCandidate* StrongestSignificantPeak(const std::vector<PeriodCandidate>& candidates,
                                                const PeriodicityOptions& o) {
  const PeriodCandidate* best = nullptr;
  for (const PeriodCandidate& c : candidates)
    if (c.significant && (best == nullptr || c.acf > best->acf)) best = &c;
  if (best == nullptr) return nullptr;
  // A shorter significant period that the best one is a multiple of, and that
  // correlates almost as well, is the fundamental (24 h rather than 48 h).
  const PeriodCandidate* fundamental = best;
  for (const PeriodCandidate& c : candidates)
    if (c.significant && c.lag < fundamental->lag && c.acf >= best->acf - o.harmonic_tolerance &&
        IsMultiple(best->lag, c.lag))
      fundamental = &c;
  return fundamental;
}

// The autocorrelation locates a period only to within its noise (a step or two on a
// daily cycle); the lag nearby whose mean cycle explains the most, the highest F, is
// the period (a lag one step off smears the cycle by a step per repeat).
PeriodCandidate RefineLagByStrength(const PeriodCandidate& best, const std::vector<double>& y,
                                    const RegularGrid& coarse, const std::vector<double>& acf,
                                    const std::vector<double>& band, const PeriodicityOptions& o,
                                    const PeriodicityResult& r) {
  PeriodCandidate chosen = best;
  size_t reach = std::max<size_t>(1, best.lag / 100);
  for (size_t k = best.lag > reach ? best.lag - reach : 1; k <= best.lag + reach; ++k) {
    if (k < r.min_lag || k > r.max_lag || k == best.lag) continue;
    if (!(acf[k] > band[k] && acf[k] >= o.min_acf)) continue;  // the refined lag must pass too
    double f = SeasonalStrengthAtLag(y, coarse, k);
    if (f > chosen.strength) {
      chosen.lag = k;
      chosen.acf = acf[k];
      chosen.band = band[k];
      chosen.strength = f;
    }
  }
  return chosen;
}

// Why no candidate made the period: no peak at all, or the highest one and the tests.
std::string NoSignificantPeriodReason(const std::vector<PeriodCandidate>& candidates, const PeriodicityOptions& o) {
  if (candidates.empty()) return "the autocorrelation has no peak between the shortest and longest candidate period";
  return "no autocorrelation peak passes the test (highest peak r=" + FormatFixed(candidates.front().acf, 3) +
         "; needs r above the Bartlett band, r >= " + FormatFixed(o.min_acf, 2) +
         " and a strength of seasonality >= " + FormatFixed(o.min_strength, 2) + ")";
}

// Fills the periodic verdict of r from the chosen lag: the period, its test figures, the
// mean cycle (series mean plus the seasonal component per phase) and its phase windows.
void DescribePeriod(const PeriodCandidate& chosen, size_t peak_lag, const std::vector<double>& y,
                    const RegularGrid& coarse, const PeriodicityOptions& o, PeriodicityResult* r) {
  r->verdict = PeriodVerdict::kPeriodic;
  r->period_points = chosen.lag;
  r->period = static_cast<int64_t>(chosen.lag) * coarse.step;
  r->acf = chosen.acf;
  r->band = chosen.band;
  r->prominence = chosen.prominence;
  r->reason = "autocorrelation peak above the band, with a stable shape, at this lag";
  if (chosen.lag != peak_lag)
    r->reason += " (refined from the peak at lag " + std::to_string(peak_lag) + " by the strength of seasonality)";
  size_t first_phase = PhaseOfFirstPoint(coarse, r->period);
  Decomposition dec = Decompose(y, r->period_points, first_phase);
  r->strength = dec.strength;
  r->complete_cycles = y.size() / r->period_points;
  r->profile.resize(r->period_points);
  for (size_t k = 0; k < r->period_points; ++k) r->profile[k] = r->series_mean + dec.seasonal[k];
  FillPhaseWindows(y, first_phase, coarse.step, o, r);
}

}  // namespace

const char* PeriodVerdictName(PeriodVerdict verdict) {
  switch (verdict) {
    case PeriodVerdict::kPeriodic: return "periodic";
    case PeriodVerdict::kNoSignificantPeriod: return "no significant period";
    case PeriodVerdict::kConstant: return "constant";
    case PeriodVerdict::kTooShort: return "too short";
    case PeriodVerdict::kTooSparse: return "too sparse";
  }
  return "?";
}

std::vector<double> Autocorrelation(const std::vector<double>& values, size_t max_lag) {
  size_t n = values.size();
  std::vector<double> r(max_lag + 1, 0.0);
  if (n == 0) return r;
  double m = Mean(values);
  std::vector<double> c(n);
  for (size_t i = 0; i < n; ++i) c[i] = values[i] - m;
  double variance = 0;
  for (double x : c) variance += x * x;
  variance /= static_cast<double>(n);
  if (variance <= 0) return r;
  for (size_t k = 0; k <= max_lag && k < n; ++k) {
    double s = 0;
    for (size_t i = 0; i + k < n; ++i) s += c[i] * c[i + k];
    r[k] = s / static_cast<double>(n - k) / variance;
  }
  return r;
}

std::vector<double> CenteredMovingAverage(const std::vector<double>& values, size_t window) {
  size_t n = values.size(), half = window / 2;
  std::vector<double> prefix(n + 1, 0.0), out(n, 0.0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + values[i];
  for (size_t i = 0; i < n; ++i) {
    size_t a = i >= half ? i - half : 0;
    size_t b = std::min(n, i + half + 1);
    out[i] = (prefix[b] - prefix[a]) / static_cast<double>(b - a);
  }
  return out;
}

PeriodicityResult DetectPeriodicity(const RegularGrid& grid, const PeriodicityOptions& o) {
  PeriodicityResult r;
  r.coarsen_factor = ChooseCoarsenFactor(grid.size(), grid.step, o);
  RegularGrid coarse = Coarsen(grid, r.coarsen_factor);
  const std::vector<double>& y = coarse.values;
  size_t n = y.size();
  r.analysis_step = coarse.step;
  r.analysis_points = n;
  r.series_mean = Mean(y);
  if (RejectConstantOrSparseSeries(grid, o, &r)) return r;
  if (!SetCandidateLagRange(n, coarse.step, o, &r)) return r;

  std::vector<double> acf = DetrendedAutocorrelation(y, &r);
  if (acf[0] <= 0) {
    r.verdict = PeriodVerdict::kNoSignificantPeriod;
    r.reason = "nothing is left once the slow trend is removed";
    return r;
  }
  std::vector<double> band = BartlettBand(acf, r.max_lag, n, o.z);
  r.calendar_lags = MeasureCalendarLags(acf, band, coarse.step, o, r);
  r.candidates = FindPeakCandidates(y, coarse, acf, band, o, r);

  // `best` points into r.candidates: the chosen lag and the peak's lag are copied out
  // before the list is cut to the ones kept.
  const PeriodCandidate* best = StrongestSignificantPeak(r.candidates, o);
  std::optional<PeriodCandidate> chosen;
  if (best != nullptr) chosen = RefineLagByStrength(*best, y, coarse, acf, band, o, r);
  size_t best_lag = best != nullptr ? best->lag : 0;
  if (r.candidates.size() > kMaxCandidatesKept) r.candidates.resize(kMaxCandidatesKept);
  if (!chosen) {
    r.verdict = PeriodVerdict::kNoSignificantPeriod;
    r.reason = NoSignificantPeriodReason(r.candidates, o);
    return r;
  }
  DescribePeriod(*chosen, best_lag, y, coarse, o, &r);
  return r;
}

}  // namespace kraken::temporal
