#include "report/temporal_forecast_output.h"

#include <cmath>

#include "base/json_writer.h"
#include "base/text_table.h"
#include "report/temporal_output.h"

namespace kraken {
namespace {

const temporal::HorizonEvaluation* Evaluated(const ForecastedSeries& s) {
  if (s.report == nullptr || s.report->forecast.horizons.empty()) return nullptr;
  return &s.report->forecast.horizons[0];
}

std::string Number(double v) { return std::isfinite(v) ? FormatFixed(v, 3) : "-"; }

void Header(const ForecastedSeries& s, std::string& out) {
  out += s.report->name + " (" + s.source + "): forecast to " + s.horizon;
  if (!s.report->unit.empty()) out += ", unit " + s.report->unit;
  out += "\n";
  if (!s.reason.empty()) {
    out += "  no forecast: " + s.reason + "\n";
    return;
  }
  const temporal::HorizonEvaluation* h = Evaluated(s);
  out += "  method " + std::string(temporal::ForecastMethodName(h->params.method)) + ", back-test MASE " +
         Number(h->mase) + " at " + h->label + "; intervals from the forecaster's own errors at each lead time";
  if (s.path.coverage_targets > 0) {
    out += "; held-out coverage: 80% interval " + FormatFixed(s.path.coverage80 * 100, 1) + "%, 95% interval " +
           FormatFixed(s.path.coverage95 * 100, 1) + "% of " + std::to_string(s.path.coverage_targets) + " targets";
  }
  out += "\n";
}

}  // namespace

std::string RenderForecastText(const std::vector<ForecastedSeries>& series) {
  std::string out;
  for (const ForecastedSeries& s : series) {
    Header(s, out);
    if (!s.reason.empty()) continue;
    SampleAxis axis = s.report->axis;
    TextTable table({"lead", "at", "forecast", "80% low", "80% high", "95% low", "95% high"},
                    {TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kRight,
                     TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight,
                     TextTable::Align::kRight});
    for (const temporal::ForecastPoint& p : s.path.points) {
      table.AddRow({FormatAxisSpan(static_cast<int64_t>(p.steps) * s.report->grid.step, axis),
                    FormatAxisTime(p.at, axis), Number(p.value), Number(p.lo80), Number(p.hi80), Number(p.lo95),
                    Number(p.hi95)});
    }
    out += table.Render() + "\n";
  }
  return out;
}

std::string RenderForecastJson(const std::vector<ForecastedSeries>& series) {
  JsonWriter w;
  w.BeginObject().Key("series").BeginArray();
  for (const ForecastedSeries& s : series) {
    w.BeginObject().Field("source", s.source).Field("name", s.report->name).Field("unit", s.report->unit);
    w.Field("horizon", s.horizon);
    if (!s.reason.empty()) {
      w.Field("reason", s.reason).EndObject();
      continue;
    }
    const temporal::HorizonEvaluation* h = Evaluated(s);
    w.Field("method", temporal::ForecastMethodName(h->params.method));
    w.Key("mase");
    std::isfinite(h->mase) ? w.Number(h->mase) : w.Null();
    w.Field("step", s.report->grid.step);
    w.Key("coverage").BeginObject().Field("targets", static_cast<int64_t>(s.path.coverage_targets));
    w.Field("interval80", s.path.coverage80).Field("interval95", s.path.coverage95).EndObject();
    w.Key("points").BeginArray();
    for (const temporal::ForecastPoint& p : s.path.points) {
      w.BeginObject().Field("lead_steps", static_cast<int64_t>(p.steps)).Field("at", p.at);
      w.Field("value", p.value).Field("lo80", p.lo80).Field("hi80", p.hi80).Field("lo95", p.lo95);
      w.Field("hi95", p.hi95).Field("residuals", static_cast<int64_t>(p.residuals)).EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray().EndObject();
  return w.Take() + "\n";
}

}  // namespace kraken
