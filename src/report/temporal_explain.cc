// The --explain view of `kraken temporal`: for every series, its inputs, each part of the
// periodicity test and of the forecast evaluation with its value, and the assumptions.
#include <cmath>
#include <cstdio>

#include "base/text_table.h"
#include "report/temporal_output.h"

namespace kraken {
namespace {

using temporal::ForecastMethod;
using temporal::ForecastParams;
using temporal::HorizonEvaluation;
using temporal::PeriodicityResult;
using temporal::PeriodVerdict;
using temporal::PhaseWindow;
using temporal::TemporalReport;

std::string Num(double v, int decimals = 3) { return std::isnan(v) ? "n/a" : FormatFixed(v, decimals); }

// Errors and levels in series units, whatever their scale (bytes, ratios): 4 significant digits.
std::string Value(double v) {
  if (std::isnan(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string Line(const std::string& label, const std::string& text) {
  std::string padded = "  " + label;
  if (padded.size() < 20) padded.resize(20, ' ');
  return padded + " " + text + "\n";
}

std::string Steps(size_t steps, int64_t step, SampleAxis axis) {
  return std::to_string(steps) + " steps (" + FormatAxisSpan(static_cast<int64_t>(steps) * step, axis) + ")";
}

std::string WindowText(const PhaseWindow& w, const PeriodicityResult& p, SampleAxis axis, const char* recurs) {
  return FormatPhase(w.start, p.period, axis) + " to " + FormatPhase((w.start + w.length) % p.period, p.period, axis) +
         " (" + FormatAxisSpan(w.length, axis) + "), mean level " + Value(w.mean_level) + " vs series mean " +
         Value(p.series_mean) + "; " + recurs + " in " + FormatFixed(100.0 * w.recurrence, 0) + "% of " +
         std::to_string(p.complete_cycles) + " complete cycles";
}

void ExplainPeriodicity(const TemporalReport& r, const temporal::PeriodicityOptions& o, std::string& out) {
  const PeriodicityResult& p = r.periodicity;
  out += "\nPeriodicity\n";
  if (p.analysis_points == 0 || p.verdict == PeriodVerdict::kConstant || p.verdict == PeriodVerdict::kTooSparse) {
    out += Line("verdict", std::string(temporal::PeriodVerdictName(p.verdict)) + ": " + p.reason);
    return;
  }
  out += Line("analysis grid", FormatAxisSpan(p.analysis_step, r.axis) + " = " + std::to_string(p.coarsen_factor) +
                                   " native step(s) averaged, " + std::to_string(p.analysis_points) + " points (at most " +
                                   std::to_string(o.max_analysis_points) + ")");
  if (p.verdict == PeriodVerdict::kTooShort) {
    out += Line("verdict", std::string(temporal::PeriodVerdictName(p.verdict)) + ": " + p.reason);
    return;
  }
  out += Line("candidate periods", FormatAxisSpan(static_cast<int64_t>(p.min_lag) * p.analysis_step, r.axis) + " to " +
                                       FormatAxisSpan(static_cast<int64_t>(p.max_lag) * p.analysis_step, r.axis) +
                                       " (lags " + std::to_string(p.min_lag) + ".." + std::to_string(p.max_lag) +
                                       "): repeats at least " + FormatFixed(o.min_cycles, 0) + " times in the data" +
                                       (r.axis == SampleAxis::kTimeNs ? ", at most 7d" : ""));
  out += Line("detrending", "minus a centered moving average over " + Steps(p.detrend_window, p.analysis_step, r.axis));
  out += Line("test", "peak r_k > band = " + FormatFixed(o.z, 1) + " * sqrt((1 + 2 sum_{j<k} r_j^2) / n), r_k >= " +
                          FormatFixed(o.min_acf, 2) + ", rise over the trough in [k/2, k] >= " +
                          FormatFixed(o.min_prominence, 2) + ", strength F >= " + FormatFixed(o.min_strength, 2));
  if (!p.candidates.empty()) {
    out += "  autocorrelation peaks, highest first:\n";
    TextTable t({"lag", "period", "r", "band", "rise", "strength F", "passes"},
                {TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight,
                 TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kLeft});
    for (const auto& c : p.candidates)
      t.AddRow({std::to_string(c.lag), FormatAxisSpan(static_cast<int64_t>(c.lag) * p.analysis_step, r.axis),
                Num(c.acf), Num(c.band), Num(c.prominence), c.strength > 0 ? Num(c.strength, 2) : "-",
                c.significant ? "yes" : "no"});
    out += t.Render("    ");
  }
  for (const auto& c : p.calendar_lags)
    out += Line("r at " + FormatAxisSpan(static_cast<int64_t>(c.lag) * p.analysis_step, r.axis),
                Num(c.acf) + " (band " + Num(c.band) + ", rise " + Num(c.prominence) + ")");
  if (p.verdict != PeriodVerdict::kPeriodic) {
    out += Line("verdict", std::string(temporal::PeriodVerdictName(p.verdict)) + ": " + p.reason);
    return;
  }
  out += Line("verdict", "period " + FormatAxisSpan(p.period, r.axis) + " (" + std::to_string(p.period_points) +
                             " analysis steps): r = " + Num(p.acf) + " > band " + Num(p.band) + ", rise " +
                             Num(p.prominence));
  out += Line("strength", "F = 1 - Var(remainder) / Var(seasonal + remainder) = " + Num(p.strength, 3) +
                              " (classical decomposition at the period)");
  if (p.peak.length > 0) out += Line("peak window", WindowText(p.peak, p, r.axis, "above the cycle's mean"));
  for (const PhaseWindow& w : p.idle_windows) out += Line("idle window", WindowText(w, p, r.axis, "below the cycle's mean"));
}

std::string ModelText(const ForecastParams& m, int64_t step, SampleAxis axis) {
  std::string avg = m.robust ? "median" : "mean";
  switch (m.method) {
    case ForecastMethod::kNaive: return "naive: forecast(t+h) = y[t]";
    case ForecastMethod::kSeasonalNaive:
      return "seasonal naive: forecast(t+h) = y[t+h - ceil(h/P) P], P = " + Steps(m.period, step, axis);
    case ForecastMethod::kSeasonalMean:
      return "seasonal mean: base = " + avg + " of the target's phase +-" + std::to_string(m.smooth) + " steps over K=" +
             std::to_string(m.cycles) + " past cycles (P = " + Steps(m.period, step, axis) + "); dev = " + avg +
             " of the last L=" + Steps(m.level_window, step, axis) + " - " + avg +
             " of the same phases K cycles earlier; forecast = base + " + FormatFixed(m.beta, 1) + " * dev";
    case ForecastMethod::kLocalMean:
      return "local mean: base = " + avg + " of the last M=" + Steps(m.mean_window, step, axis) + "; dev = " + avg +
             " of the last L=" + Steps(m.level_window, step, axis) + " - base; forecast = base + " +
             FormatFixed(m.beta, 1) + " * dev";
  }
  return "?";
}

void ExplainForecast(const TemporalReport& r, const temporal::TemporalOptions& options, std::string& out) {
  const auto& f = r.forecast;
  out += "\nForecast\n";
  const PeriodicityResult& used = r.training_periodicity;
  out += Line("split", "training head " + std::to_string(f.train_points) + " points, held-out tail " +
                           std::to_string(f.test_points) + " points (" +
                           FormatFixed(100.0 * options.forecast.test_fraction, 0) + "%)");
  out += Line("period used", used.verdict == PeriodVerdict::kPeriodic
                                 ? FormatAxisSpan(used.period, r.axis) + ", detected on the training head only"
                                 : std::string("none on the training head (") + temporal::PeriodVerdictName(used.verdict) +
                                       "): non-seasonal model, naive baseline");
  for (const HorizonEvaluation& h : f.horizons) {
    std::string head = "horizon " + h.label;
    if (!h.evaluated) {
      out += Line(head, "not evaluated: " + h.reason);
      continue;
    }
    out += Line(head, Steps(h.steps, r.grid.step, r.axis) + ", " + std::string(h.seasonal ? "seasonal" : "non-seasonal") +
                          (h.reason.empty() ? "" : " (" + h.reason + ")"));
    out += Line("  selection", std::to_string(h.fit_origins) + " training origins: MAE naive " + Value(h.fit_mae_naive) +
                                   ", seasonal naive " + Value(h.fit_mae_seasonal_naive) + ", best fitted " +
                                   Value(h.fit_mae_best_fitted));
    std::string rule = "the fitted model is kept when >= " +
                       FormatFixed(100.0 * options.forecast.selection_margin, 0) +
                       "% better than the better baseline and its gain per block of h origins is >= " +
                       FormatFixed(options.forecast.selection_t, 1) + " standard errors above 0";
    if (h.selection_blocks > 0)
      rule += ": t = " + Num(h.selection_t, 2) + " over " + std::to_string(h.selection_blocks) + " blocks";
    out += Line("  rule", rule);
    out += Line("  model", ModelText(h.params, r.grid.step, r.axis));
    std::string baseline = h.seasonal ? "seasonal naive" : "naive";
    out += Line("  test", std::to_string(h.origins) + " origins: MAE model " + Value(h.mae_model) + ", MAE " + baseline +
                              " " + Value(h.mae_baseline) + " -> MASE = " + Value(h.mae_model) + " / " +
                              Value(h.mae_baseline) + " = " + Num(h.mase) + "; MAE naive " + Value(h.mae_naive) +
                              " (model / naive = " + Num(h.ratio_vs_naive) + ")");
  }
}

}  // namespace

std::string RenderTemporalExplain(const std::vector<TemporalFile>& files, const temporal::TemporalOptions& options) {
  std::string out;
  for (const TemporalFile& file : files) {
    for (size_t i = 0; i < file.reports.size(); ++i) {
      const TemporalReport& r = file.reports[i];
      out += "=== [" + std::to_string(file.indices[i]) + "] " + r.name + (r.unit.empty() ? "" : "  (" + r.unit + ")") +
             "  from " + file.source + " [" + file.format + "]\n";
      if (!r.error.empty()) {
        out += Line("error", r.error) + "\n";
        continue;
      }
      const auto& g = r.grid;
      out += "\nInputs\n";
      out += Line("samples", std::to_string(g.samples) + ", " + FormatAxisTime(g.start, r.axis) + " to " +
                                 FormatAxisTime(g.TimeAt(g.size() - 1), r.axis) +
                                 (file.clock.empty() ? "" : " (clock: " + file.clock + ")"));
      out += Line("regular grid", "step " + FormatAxisSpan(g.step, r.axis) +
                                      (options.grid.step > 0 ? " (as requested)" : " (median spacing of the samples)") +
                                      ", " + std::to_string(g.size()) + " points; " + std::to_string(g.merged_samples) +
                                      " samples averaged with another on one point, " + std::to_string(g.filled_points) +
                                      " points interpolated (longest gap " + std::to_string(g.longest_gap_points) +
                                      " points)");
      ExplainPeriodicity(r, options.periodicity, out);
      ExplainForecast(r, options, out);
      out += "\n";
    }
  }
  out +=
      "Assumptions\n"
      "  - Samples go to the nearest grid point; points without one are interpolated linearly and never scored.\n"
      "  - Phases count from the Unix epoch in the file's clock (a daily phase is the time of day there; files\n"
      "    without a zone are read as UTC; anonymized clocks are shifted, so their clock time means nothing).\n"
      "  - A period must repeat at least " +
      FormatFixed(options.periodicity.min_cycles, 0) +
      " times in the data; a daily one cannot be checked on less than 3 days.\n"
      "  - The forecaster sees only values up to each origin; its method and parameters come from the training\n"
      "    head, and so does the period it uses.\n"
      "  - MASE divides by the baseline's MAE on the same origins (not by the in-sample naive MAE of\n"
      "    Hyndman & Koehler 2006), so below 1 means better than the baseline on exactly these forecasts.\n";
  return out;
}

}  // namespace kraken
