#include "analysis/temporal/forecast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace kraken::temporal {
namespace {

constexpr int kBetaSteps = 10;  // beta in {0, 0.1, ..., 1}

size_t CeilDiv(size_t a, size_t b) { return (a + b - 1) / b; }

// Up to `max_count` origins evenly spread over [first, last] (both included).
std::vector<size_t> Spread(size_t first, size_t last, size_t max_count) {
  std::vector<size_t> out;
  if (last < first || max_count == 0) return out;
  size_t stride = CeilDiv(last - first + 1, max_count);
  for (size_t t = first; t <= last; t += stride) out.push_back(t);
  return out;
}

std::vector<size_t> Distinct(std::vector<size_t> v, size_t min_value) {
  std::set<size_t> s;
  for (size_t x : v) s.insert(std::max(x, min_value));
  return {s.begin(), s.end()};
}

// The fitted candidates (beta comes later): seasonal ones when a period is given, the
// local ones always.
std::vector<ForecastParams> CandidateGrid(size_t period, size_t h, size_t train) {
  std::vector<ForecastParams> out;
  std::vector<size_t> levels = Distinct({1, h / 16, h / 4, h}, 1);
  for (bool robust : {false, true}) {
    if (period > 0) {
      std::vector<size_t> smooths = Distinct({0, period / 288, period / 96, period / 48}, 0);
      for (size_t k : {1, 2, 3, 4, 6, 8})
        for (size_t w : smooths)
          for (size_t l : levels) {
            if (2 * w >= period || l > period) continue;
            ForecastParams p;
            p.method = ForecastMethod::kSeasonalMean;
            p.robust = robust;
            p.period = period;
            p.cycles = k;
            p.smooth = w;
            p.level_window = l;
            out.push_back(p);
          }
    }
    for (size_t m : Distinct({h, 4 * h, 16 * h, 64 * h, train / 2}, 2))
      for (size_t l : levels) {
        if (l >= m || m > train) continue;
        ForecastParams p;
        p.method = ForecastMethod::kLocalMean;
        p.robust = robust;
        p.mean_window = m;
        p.level_window = l;
        out.push_back(p);
      }
  }
  return out;
}

struct Fit {
  ForecastParams params;
  double mae = std::numeric_limits<double>::infinity();
};

// The MAE of a baseline (no parameters to fit) over the origins.
Fit ScoreBaseline(const ForecastSeries& y, const std::vector<size_t>& origins, size_t h, const ForecastParams& p) {
  Fit fit;
  fit.params = p;
  double sum = 0;
  for (size_t t : origins) sum += std::fabs(y.at(t + h) - Forecast(y, t, h, p));
  fit.mae = sum / static_cast<double>(origins.size());
  return fit;
}

// The parts of the candidates, per origin, computed once and shared: the recent level
// depends on L only, the local base on M only, the seasonal base on (K, W), the past
// level on (K, L). Keys: {part, robust, first parameter, second parameter}.
class PartsCache {
 public:
  PartsCache(const ForecastSeries& y, const std::vector<size_t>& origins, size_t h) : y_(y), origins_(origins), h_(h) {}

  const std::vector<double>& Recent(const ForecastParams& p) {
    return Get({0, p.robust, p.level_window, 0}, [&](size_t t) {
      return y_.Average(t + 1 - p.level_window, t + 1, p.robust);
    });
  }
  const std::vector<double>& Base(const ForecastParams& p) {
    if (p.method == ForecastMethod::kLocalMean)
      return Get({1, p.robust, p.mean_window, 0}, [&](size_t t) { return y_.Average(BaseRanges(t, h_, p), p.robust); });
    return Get({2, p.robust, p.cycles, p.smooth}, [&](size_t t) { return y_.Average(BaseRanges(t, h_, p), p.robust); });
  }
  const std::vector<double>& PastLevel(const ForecastParams& p) {
    return Get({3, p.robust, p.cycles, p.level_window},
               [&](size_t t) { return y_.Average(PastLevelRanges(t, p), p.robust); });
  }

 private:
  template <typename Fn>
  const std::vector<double>& Get(std::array<size_t, 4> key, Fn fn) {
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::vector<double> values;
    values.reserve(origins_.size());
    for (size_t t : origins_) values.push_back(fn(t));
    return cache_.emplace(key, std::move(values)).first->second;
  }

  const ForecastSeries& y_;
  const std::vector<size_t>& origins_;
  size_t h_;
  std::map<std::array<size_t, 4>, std::vector<double>> cache_;
};

// The beta in {0, 0.1, ..., 1} with the lowest MAE over the origins.
Fit FitBeta(const ForecastSeries& y, const std::vector<size_t>& origins, size_t h, ForecastParams p, PartsCache& cache) {
  const std::vector<double>& base = cache.Base(p);
  const std::vector<double>& recent = cache.Recent(p);
  const std::vector<double>& reference = p.method == ForecastMethod::kLocalMean ? base : cache.PastLevel(p);
  Fit best;
  for (int step = 0; step <= kBetaSteps; ++step) {
    double beta = static_cast<double>(step) / kBetaSteps;
    double sum = 0;
    for (size_t i = 0; i < origins.size(); ++i)
      sum += std::fabs(y.at(origins[i] + h) - (base[i] + beta * (recent[i] - reference[i])));
    double mae = sum / static_cast<double>(origins.size());
    if (mae < best.mae) {
      best.mae = mae;
      best.params = p;
      best.params.beta = beta;
    }
  }
  return best;
}

// Whether `candidate` beats `reference` on the origins beyond what their dependence
// allows: forecasts h steps ahead from origins less than h apart share their errors, so
// the loss differences are averaged per block of h consecutive steps and the blocks are
// what is counted (a Diebold-Mariano comparison with non-overlapping blocks).
struct BlockTest {
  size_t blocks = 0;
  double t = 0;  // mean block gain / its standard error; + when the candidate is better
};

BlockTest CompareInBlocks(const ForecastSeries& y, const std::vector<size_t>& origins, size_t h,
                          const ForecastParams& reference, const ForecastParams& candidate) {
  std::vector<double> sums;
  std::vector<size_t> counts;
  for (size_t t : origins) {
    size_t block = (t - origins.front()) / h;
    if (block >= sums.size()) {
      sums.resize(block + 1, 0.0);
      counts.resize(block + 1, 0);
    }
    double actual = y.at(t + h);
    sums[block] += std::fabs(actual - Forecast(y, t, h, reference)) - std::fabs(actual - Forecast(y, t, h, candidate));
    ++counts[block];
  }
  std::vector<double> gains;
  for (size_t b = 0; b < sums.size(); ++b)
    if (counts[b] > 0) gains.push_back(sums[b] / static_cast<double>(counts[b]));
  BlockTest test;
  test.blocks = gains.size();
  if (gains.size() < 2) return test;
  double mean = 0;
  for (double g : gains) mean += g;
  mean /= static_cast<double>(gains.size());
  double var = 0;
  for (double g : gains) var += (g - mean) * (g - mean);
  var /= static_cast<double>(gains.size() - 1);
  double se = std::sqrt(var / static_cast<double>(gains.size()));
  test.t = se > 0 ? mean / se : (mean > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  return test;
}

ForecastParams SeasonalNaive(size_t period) {
  ForecastParams seasonal_naive;
  seasonal_naive.method = ForecastMethod::kSeasonalNaive;
  seasonal_naive.period = period;
  return seasonal_naive;
}

// Whether the origin and its target h steps later were both observed.
bool ObservedPair(const RegularGrid& grid, size_t t, size_t h) {
  return grid.observed[t] != 0 && grid.observed[t + h] != 0;
}

// The origins the model is fitted on; false, with e->reason, when there are too few.
// *seasonal: whether the period leaves enough of the training part for seasonal fits.
bool SelectFitOrigins(const RegularGrid& grid, size_t period, size_t train, const ForecastOptions& options,
                      HorizonEvaluation* e, bool* seasonal, std::vector<size_t>* fit_origins) {
  const size_t h = e->steps;
  size_t last_fit = train - 1 - h;
  // Fit origins: the recent half of the training origins from which a seasonal naive
  // forecast (or, without a period, one with a 2-point mean) is possible.
  size_t first_fit = period > 0 ? CeilDiv(h, period) * period - h : 1;
  *seasonal = period > 0 && first_fit + options.min_fit_origins <= last_fit;
  if (period > 0 && !*seasonal) {
    e->reason = "period too long for the training part: non-seasonal model and naive baseline used";
    first_fit = 1;
  }
  if (first_fit + options.min_fit_origins > last_fit) {
    e->reason = "training part too short to fit the model at this horizon";
    return false;
  }
  first_fit += static_cast<size_t>(static_cast<double>(last_fit - first_fit) * (1.0 - options.fit_span));
  for (size_t t : Spread(first_fit, last_fit, options.max_fit_origins))
    if (ObservedPair(grid, t, h)) fit_origins->push_back(t);
  if (fit_origins->size() < options.min_fit_origins) {
    e->reason = "too few observed training targets to fit the model";
    return false;
  }
  return true;
}

// The best of the baselines (naive, seasonal naive when seasonal_period > 0) on the fit
// origins, replaced by the best fitted candidate only when it wins by the margin and the
// block test.
Fit SelectModel(const ForecastSeries& y, const std::vector<size_t>& fit_origins, size_t seasonal_period, size_t train,
                const ForecastOptions& options, HorizonEvaluation* e) {
  const size_t h = e->steps;
  ForecastParams naive;  // kNaive
  Fit best = ScoreBaseline(y, fit_origins, h, naive);
  e->fit_mae_naive = best.mae;
  e->fit_mae_seasonal_naive = std::nan("");
  if (seasonal_period > 0) {
    Fit snaive = ScoreBaseline(y, fit_origins, h, SeasonalNaive(seasonal_period));
    e->fit_mae_seasonal_naive = snaive.mae;
    if (snaive.mae < best.mae) best = snaive;
  }
  Fit fitted;
  PartsCache cache(y, fit_origins, h);
  for (const ForecastParams& p : CandidateGrid(seasonal_period, h, train)) {
    if (!CanForecast(fit_origins.front(), h, p)) continue;
    Fit fit = FitBeta(y, fit_origins, h, p, cache);
    if (fit.mae < fitted.mae) fitted = fit;
  }
  e->fit_mae_best_fitted = fitted.mae;
  if (std::isfinite(fitted.mae) && fitted.mae < best.mae * (1.0 - options.selection_margin)) {
    BlockTest test = CompareInBlocks(y, fit_origins, h, best.params, fitted.params);
    e->selection_blocks = test.blocks;
    e->selection_t = test.t;
    if (test.blocks >= 2 && test.t >= options.selection_t) best = fitted;
  }
  return best;
}

// Summed absolute errors over the held-out origins.
struct HeldOutErrors {
  double model = 0, baseline = 0, naive = 0;
  size_t scored = 0;
};

// The baseline is the seasonal naive forecast when seasonal_period > 0, else the naive one.
HeldOutErrors ScoreHeldOut(const RegularGrid& grid, const ForecastSeries& y, size_t h, size_t seasonal_period,
                           size_t train, size_t max_origins, const ForecastParams& params) {
  const ForecastParams seasonal_naive = SeasonalNaive(seasonal_period);
  HeldOutErrors sums;
  for (size_t t : Spread(train - 1, y.size() - 1 - h, max_origins)) {
    if (!ObservedPair(grid, t, h) || !CanForecast(t, h, params)) continue;
    double actual = y.at(t + h);
    double reference = seasonal_period > 0 ? Forecast(y, t, h, seasonal_naive) : y.at(t);
    sums.model += std::fabs(actual - Forecast(y, t, h, params));
    sums.baseline += std::fabs(actual - reference);
    sums.naive += std::fabs(actual - y.at(t));
    ++sums.scored;
  }
  return sums;
}

void EvaluateHorizon(const RegularGrid& grid, const ForecastSeries& y, size_t period, size_t train,
                     const ForecastOptions& options, HorizonEvaluation* e) {
  size_t n = y.size(), h = e->steps;
  if (train < h + 2 || n - train < h + 1) {
    e->reason = "series too short for this horizon: " + std::to_string(n) + " points, the held-out tail has " +
                std::to_string(n - train) + " and the horizon needs " + std::to_string(h + 1);
    return;
  }
  bool seasonal = false;
  std::vector<size_t> fit_origins;
  if (!SelectFitOrigins(grid, period, train, options, e, &seasonal, &fit_origins)) return;
  const size_t seasonal_period = seasonal ? period : 0;
  const Fit best = SelectModel(y, fit_origins, seasonal_period, train, options, e);
  const HeldOutErrors sums = ScoreHeldOut(grid, y, h, seasonal_period, train, options.max_origins, best.params);
  if (sums.scored == 0) {
    e->reason = "no observed target in the held-out tail";
    return;
  }
  e->evaluated = true;
  e->seasonal = seasonal;
  e->params = best.params;
  e->fit_origins = fit_origins.size();
  e->fit_mae = best.mae;
  e->origins = sums.scored;
  e->mae_model = sums.model / static_cast<double>(sums.scored);
  e->mae_baseline = sums.baseline / static_cast<double>(sums.scored);
  e->mae_naive = sums.naive / static_cast<double>(sums.scored);
  e->mase = e->mae_baseline > 0 ? e->mae_model / e->mae_baseline : std::nan("");
  e->ratio_vs_naive = e->mae_naive > 0 ? e->mae_model / e->mae_naive : std::nan("");
}

}  // namespace

ForecastEvaluation EvaluateForecasts(const RegularGrid& grid, size_t period, const std::vector<HorizonRequest>& horizons,
                                     const ForecastOptions& options) {
  ForecastEvaluation out;
  out.period = period;
  size_t n = grid.size();
  size_t test = static_cast<size_t>(std::ceil(static_cast<double>(n) * options.test_fraction));
  out.test_points = std::min(test, n);
  out.train_points = n - out.test_points;
  ForecastSeries y(grid.values);
  for (const HorizonRequest& request : horizons) {
    HorizonEvaluation e;
    e.label = request.label;
    e.steps = request.steps;
    e.horizon = static_cast<int64_t>(request.steps) * grid.step;
    if (request.steps == 0) {
      e.reason = request.reason.empty() ? "horizon shorter than one step of the series" : request.reason;
    } else {
      EvaluateHorizon(grid, y, period, out.train_points, options, &e);
    }
    out.horizons.push_back(std::move(e));
  }
  return out;
}

}  // namespace kraken::temporal
