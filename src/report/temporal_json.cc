// The --json document of `kraken temporal` (keys in docs/temporal.md). Times and
// durations are in axis units: nanoseconds, or iterations where "axis" says so.
#include "base/json_writer.h"
#include "report/temporal_output.h"

namespace kraken {
namespace {

using temporal::HorizonEvaluation;
using temporal::PeriodicityResult;
using temporal::PhaseWindow;
using temporal::TemporalReport;

void WriteWindow(JsonWriter& w, const PhaseWindow& window) {
  w.BeginObject()
      .Field("start", window.start)
      .Field("length", window.length)
      .Field("mean_level", window.mean_level)
      .Field("recurrence", window.recurrence)
      .EndObject();
}

void WritePeriodicity(JsonWriter& w, const PeriodicityResult& p, bool with_profile) {
  w.BeginObject();
  w.Field("verdict", temporal::PeriodVerdictName(p.verdict)).Field("reason", p.reason);
  w.Field("coarsen_factor", static_cast<uint64_t>(p.coarsen_factor))
      .Field("analysis_step", p.analysis_step)
      .Field("analysis_points", static_cast<uint64_t>(p.analysis_points))
      .Field("min_lag", static_cast<uint64_t>(p.min_lag))
      .Field("max_lag", static_cast<uint64_t>(p.max_lag))
      .Field("detrend_window", static_cast<uint64_t>(p.detrend_window))
      .Field("series_mean", p.series_mean);
  w.Key("candidates").BeginArray();
  for (const auto& c : p.candidates)
    w.BeginObject()
        .Field("lag", static_cast<uint64_t>(c.lag))
        .Field("acf", c.acf)
        .Field("band", c.band)
        .Field("prominence", c.prominence)
        .Field("strength", c.strength)
        .Field("significant", c.significant)
        .EndObject();
  w.EndArray();
  w.Key("calendar_lags").BeginArray();
  for (const auto& c : p.calendar_lags)
    w.BeginObject()
        .Field("lag", static_cast<uint64_t>(c.lag))
        .Field("acf", c.acf)
        .Field("band", c.band)
        .Field("prominence", c.prominence)
        .EndObject();
  w.EndArray();
  if (p.verdict == temporal::PeriodVerdict::kPeriodic) {
    w.Field("period", p.period)
        .Field("period_points", static_cast<uint64_t>(p.period_points))
        .Field("acf", p.acf)
        .Field("band", p.band)
        .Field("prominence", p.prominence)
        .Field("strength", p.strength)
        .Field("complete_cycles", static_cast<uint64_t>(p.complete_cycles));
    if (p.peak.length > 0) {
      w.Key("peak");
      WriteWindow(w, p.peak);
    }
    w.Key("idle_windows").BeginArray();
    for (const PhaseWindow& window : p.idle_windows) WriteWindow(w, window);
    w.EndArray();
    if (with_profile) {
      w.Key("profile").BeginArray();
      for (double v : p.profile) w.Number(v);
      w.EndArray();
    }
  }
  w.EndObject();
}

void WriteHorizon(JsonWriter& w, const HorizonEvaluation& h) {
  w.BeginObject().Field("label", h.label).Field("horizon", h.horizon).Field("steps", static_cast<uint64_t>(h.steps));
  w.Field("evaluated", h.evaluated).Field("note", h.reason);
  if (h.evaluated) {
    const auto& m = h.params;
    w.Field("seasonal", h.seasonal).Field("baseline", h.seasonal ? "seasonal-naive" : "naive");
    w.Key("model")
        .BeginObject()
        .Field("method", temporal::ForecastMethodName(m.method))
        .Field("robust", m.robust)
        .Field("period", static_cast<uint64_t>(m.period))
        .Field("cycles", static_cast<uint64_t>(m.cycles))
        .Field("smooth", static_cast<uint64_t>(m.smooth))
        .Field("mean_window", static_cast<uint64_t>(m.mean_window))
        .Field("level_window", static_cast<uint64_t>(m.level_window))
        .Field("beta", m.beta)
        .EndObject();
    w.Field("fit_origins", static_cast<uint64_t>(h.fit_origins))
        .Field("fit_mae", h.fit_mae)
        .Field("fit_mae_naive", h.fit_mae_naive)
        .Field("fit_mae_seasonal_naive", h.fit_mae_seasonal_naive)
        .Field("fit_mae_best_fitted", h.fit_mae_best_fitted)
        .Field("selection_blocks", static_cast<uint64_t>(h.selection_blocks))
        .Field("selection_t", h.selection_t)
        .Field("origins", static_cast<uint64_t>(h.origins))
        .Field("mae_model", h.mae_model)
        .Field("mae_baseline", h.mae_baseline)
        .Field("mae_naive", h.mae_naive)
        .Field("mase", h.mase)
        .Field("model_over_naive", h.ratio_vs_naive);
  }
  w.EndObject();
}

}  // namespace

std::string RenderTemporalJson(const std::vector<TemporalFile>& files, const temporal::TemporalOptions& options) {
  JsonWriter w;
  w.BeginObject();
  w.Key("options")
      .BeginObject()
      .Field("test_fraction", options.forecast.test_fraction)
      .Field("max_analysis_points", static_cast<uint64_t>(options.periodicity.max_analysis_points))
      .Field("z", options.periodicity.z)
      .Field("min_acf", options.periodicity.min_acf)
      .Field("min_prominence", options.periodicity.min_prominence)
      .Field("min_strength", options.periodicity.min_strength)
      .Field("min_cycles", options.periodicity.min_cycles)
      .Field("selection_margin", options.forecast.selection_margin)
      .Field("selection_t", options.forecast.selection_t)
      .EndObject();
  w.Key("files").BeginArray();
  for (const TemporalFile& f : files) {
    w.BeginObject().Field("source", f.source).Field("format", f.format).Field("clock", f.clock);
    w.Key("series").BeginArray();
    for (size_t i = 0; i < f.reports.size(); ++i) {
      const TemporalReport& r = f.reports[i];
      w.BeginObject()
          .Field("index", static_cast<uint64_t>(f.indices[i]))
          .Field("name", r.name)
          .Field("unit", r.unit)
          .Field("axis", r.axis == SampleAxis::kIteration ? "iteration" : "time_ns");
      if (!r.error.empty()) {
        w.Field("error", r.error).EndObject();
        continue;
      }
      const auto& g = r.grid;
      w.Key("grid")
          .BeginObject()
          .Field("start", g.start)
          .Field("step", g.step)
          .Field("points", static_cast<uint64_t>(g.size()))
          .Field("samples", static_cast<uint64_t>(g.samples))
          .Field("merged_samples", static_cast<uint64_t>(g.merged_samples))
          .Field("filled_points", static_cast<uint64_t>(g.filled_points))
          .Field("longest_gap_points", static_cast<uint64_t>(g.longest_gap_points))
          .EndObject();
      w.Key("periodicity");
      WritePeriodicity(w, r.periodicity, true);
      w.Key("training_periodicity");
      WritePeriodicity(w, r.training_periodicity, false);
      w.Key("forecast")
          .BeginObject()
          .Field("period_points", static_cast<uint64_t>(r.forecast.period))
          .Field("train_points", static_cast<uint64_t>(r.forecast.train_points))
          .Field("test_points", static_cast<uint64_t>(r.forecast.test_points));
      w.Key("horizons").BeginArray();
      for (const HorizonEvaluation& h : r.forecast.horizons) WriteHorizon(w, h);
      w.EndArray().EndObject();
      w.EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray().EndObject();
  return w.Take() + "\n";
}

}  // namespace kraken
