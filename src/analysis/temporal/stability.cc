#include "analysis/temporal/stability.h"

#include <algorithm>
#include <cmath>

#include "analysis/distribution.h"

namespace kraken::temporal {

TemporalStability AnalyzeStability(const std::vector<double>& bins, double bin_s) {
  TemporalStability t;
  t.bins = static_cast<int64_t>(bins.size());
  t.bin_s = bin_s;
  if (t.bins < kMinTemporalBins) return t;
  t.measured = true;
  std::vector<double> sorted = bins;
  std::sort(sorted.begin(), sorted.end());
  Distribution d = Summarize(sorted);
  t.mean = d.mean;
  t.p95 = QuantileSorted(sorted, 0.95);
  t.cv = d.cv();
  t.burst_ratio = d.mean > 0 ? t.p95 / d.mean : 0;
  for (size_t part = 0; part < 10; ++part) {
    size_t from = part * bins.size() / 10, to = (part + 1) * bins.size() / 10;
    if (to <= from) continue;
    double sum = 0;
    for (size_t i = from; i < to; ++i) sum += bins[i];
    t.busiest_tenth = std::max(t.busiest_tenth, sum / static_cast<double>(to - from));
  }
  // Autocorrelation (normalised by the lag-0 variance) over lags 2..n/2.
  const size_t n = bins.size();
  double variance = 0;
  for (double b : bins) variance += (b - d.mean) * (b - d.mean);
  if (variance > 1e-18 * static_cast<double>(n)) {  // busy fractions: anything less is rounding
    std::vector<double> r(n / 2 + 1, 0);
    for (size_t lag = 1; lag <= n / 2; ++lag) {
      double sum = 0;
      for (size_t i = 0; i + lag < n; ++i) sum += (bins[i] - d.mean) * (bins[i + lag] - d.mean);
      r[lag] = sum / variance;
    }
    // Neighbouring bins of any smooth series correlate; a period shows as a peak after the
    // autocorrelation has first dropped to zero or below.
    size_t lag = 1;
    while (lag <= n / 2 && r[lag] > 0) ++lag;
    for (; lag + 1 <= n / 2; ++lag) {
      bool peak = r[lag] >= r[lag - 1] && r[lag] >= r[lag + 1];
      if (peak && r[lag] > t.periodicity) {
        t.periodicity = r[lag];
        t.period_s = static_cast<double>(lag) * bin_s;
      }
    }
  }
  t.predictability = std::max(1 - std::min(t.cv, 1.0), t.periodicity);
  return t;
}

Explanation ExplainStability(const TemporalStability& t, const std::string& basis) {
  Explanation e;
  e.Input("busy bins", static_cast<double>(t.bins), "", basis);
  e.Input("bin width", t.bin_s, "s", basis);
  e.Term("mean busy", t.mean, "ratio", "mean of the bins");
  e.Term("p95 busy", t.p95, "ratio", "95th percentile of the bins");
  e.Term("cv", t.cv, "", "stddev / mean of the bins");
  e.Term("burst ratio", t.burst_ratio, "", "p95 / mean");
  e.Term("busiest tenth", t.busiest_tenth, "ratio", "mean busy of the busiest of 10 equal stretches of the window");
  e.Term("periodicity", t.periodicity, "", "highest autocorrelation peak r(k) after r first drops to <= 0, k <= bins/2");
  e.Term("period", t.period_s, "s", "the lag k of that maximum x bin width");
  e.Term("predictability", t.predictability, "ratio", "max(1 - min(cv, 1), periodicity)");
  e.Assume("the autocorrelation is the biased estimate (sum over n-k pairs / total variance), so long lags "
           "are damped and a period must repeat at least twice in the window to be seen");
  return e;
}

}  // namespace kraken::temporal
