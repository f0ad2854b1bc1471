// The readable table of `kraken temporal`: one row per series.
#include <algorithm>
#include <cmath>

#include "base/text_table.h"
#include "report/temporal_output.h"

namespace kraken {
namespace {

using temporal::HorizonEvaluation;
using temporal::PeriodVerdict;
using temporal::PhaseWindow;
using temporal::TemporalReport;

constexpr size_t kIdleWindowsShown = 2;

std::string Window(const PhaseWindow& w, int64_t period, SampleAxis axis) {
  int64_t end = (w.start + w.length) % period;
  return FormatPhase(w.start, period, axis) + "-" + FormatPhase(end, period, axis);
}

std::string PeriodCell(const TemporalReport& r) {
  switch (r.periodicity.verdict) {
    case PeriodVerdict::kPeriodic: return FormatAxisSpan(r.periodicity.period, r.axis);
    case PeriodVerdict::kNoSignificantPeriod: return "none";
    case PeriodVerdict::kConstant: return "none (constant)";
    case PeriodVerdict::kTooShort: return "none (too short)";
    case PeriodVerdict::kTooSparse: return "none (too sparse)";
  }
  return "?";
}

std::string MaseCell(const HorizonEvaluation& h) {
  if (!h.evaluated) return "n/a";
  if (std::isnan(h.mase)) return "n/a (exact baseline)";
  return FormatFixed(h.mase, 3);
}

}  // namespace

std::string RenderTemporalText(const std::vector<TemporalFile>& files, const temporal::TemporalOptions& options) {
  std::string out;
  for (const TemporalFile& f : files) {
    out += "== " + f.source + "  [" + f.format + "]" + (f.clock.empty() ? "" : "  clock: " + f.clock) + "\n";
    std::vector<std::string> labels;
    for (const TemporalReport& r : f.reports)
      for (const HorizonEvaluation& h : r.forecast.horizons)
        if (std::find(labels.begin(), labels.end(), h.label) == labels.end()) labels.push_back(h.label);
    std::vector<std::string> columns = {"#", "series", "points", "step", "period", "strength", "peak", "idle windows",
                                        "baseline"};
    std::vector<TextTable::Align> align = {TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kRight,
                                           TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kRight,
                                           TextTable::Align::kLeft,  TextTable::Align::kLeft, TextTable::Align::kLeft};
    for (const std::string& label : labels) {
      columns.push_back("MASE " + label);
      align.push_back(TextTable::Align::kRight);
    }
    TextTable table(columns, align);
    table.SetMaxWidth(1, 48);
    table.SetMaxWidth(7, 40);
    for (size_t i = 0; i < f.reports.size(); ++i) {
      const TemporalReport& r = f.reports[i];
      std::vector<std::string> row = {std::to_string(f.indices[i]), r.name};
      if (!r.error.empty()) {
        row.insert(row.end(), {"-", "-", "n/a (no grid: see --explain)", "-", "-", "-", "-"});
        for (size_t k = 0; k < labels.size(); ++k) row.push_back("n/a");
        table.AddRow(row);
        continue;
      }
      const auto& p = r.periodicity;
      bool periodic = p.verdict == PeriodVerdict::kPeriodic;
      row.push_back(std::to_string(r.grid.size()));
      row.push_back(FormatAxisSpan(r.grid.step, r.axis));
      row.push_back(PeriodCell(r));
      row.push_back(periodic ? FormatFixed(p.strength, 2) : "-");
      row.push_back(periodic && p.peak.length > 0 ? Window(p.peak, p.period, r.axis) : "-");
      std::string idle;
      for (size_t k = 0; k < p.idle_windows.size() && k < kIdleWindowsShown; ++k)
        idle += (k ? ", " : "") + Window(p.idle_windows[k], p.period, r.axis);
      if (p.idle_windows.size() > kIdleWindowsShown)
        idle += " +" + std::to_string(p.idle_windows.size() - kIdleWindowsShown) + " more";
      row.push_back(periodic && !idle.empty() ? idle : "-");
      bool seasonal = false;
      for (const HorizonEvaluation& h : r.forecast.horizons) seasonal |= h.evaluated && h.seasonal;
      row.push_back(seasonal ? "seasonal naive" : "naive");
      for (const std::string& label : labels) {
        std::string cell = "n/a";
        for (const HorizonEvaluation& h : r.forecast.horizons)
          if (h.label == label) cell = MaseCell(h);
        row.push_back(cell);
      }
      table.AddRow(row);
    }
    out += table.Render();
  }
  out +=
      "\nMASE = MAE(model) / MAE(baseline) over the same rolling origins in the held-out last " +
      FormatFixed(100.0 * options.forecast.test_fraction, 0) +
      "% of each series; "
      "below 1 the model beats the baseline (seasonal naive with a period, naive without). Phases count from the "
      "Unix epoch in the file's clock. --explain shows every part, --json all numbers.\n";
  return out;
}

}  // namespace kraken
