#include "app/temporal_request.h"

#include "analysis/temporal/forecast_path.h"
#include "analysis/temporal/series_selection.h"
#include "report/temporal_forecast_output.h"

namespace kraken {

Result<temporal::TemporalOptions> MakeTemporalOptions(const TemporalSettings& settings) {
  temporal::TemporalOptions options;
  if (!settings.forecast.empty()) {
    auto horizon = temporal::ParseHorizon(settings.forecast);
    if (!horizon) return InvalidInput("--forecast expects one horizon such as 24h, 90m or 500it, got '" +
                                      settings.forecast + "'");
    options.horizons = {*horizon};
    return options;
  }
  KRAKEN_ASSIGN_OR_RETURN(options.horizons, temporal::ParseHorizons(settings.horizons));
  return options;
}

namespace {

// The forecast of every analysed series up to the one horizon of `options`.
std::vector<ForecastedSeries> ForecastAll(const std::vector<TemporalFile>& files) {
  std::vector<ForecastedSeries> out;
  for (const TemporalFile& file : files) {
    for (const temporal::TemporalReport& report : file.reports) {
      ForecastedSeries s;
      s.source = file.source;
      s.report = &report;
      const temporal::HorizonEvaluation* h = report.forecast.horizons.empty() ? nullptr : &report.forecast.horizons[0];
      s.horizon = h != nullptr ? h->label : "";
      if (!report.error.empty()) {
        s.reason = report.error;
      } else if (h == nullptr || !h->evaluated) {
        s.reason = h != nullptr && !h->reason.empty() ? h->reason : "the horizon does not apply to this series";
      } else {
        s.path = temporal::ComputeForecastPath(report.grid, h->steps, h->params);
        if (s.path.points.empty()) s.reason = "too little history for an interval at any lead time";
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace

TemporalFile AnalyzeProfileSeries(const Profile& profile, const std::vector<std::string>& selectors,
                                  const temporal::TemporalOptions& options, std::vector<bool>* matched) {
  TemporalFile file;
  file.source = profile.metadata.source;
  file.format = profile.metadata.format;
  auto clock = profile.metadata.attributes.find("clock");
  if (clock != profile.metadata.attributes.end()) file.clock = clock->second;
  for (size_t i : temporal::SelectSeries(profile, selectors, matched)) {
    file.indices.push_back(i);
    file.reports.push_back(temporal::AnalyzeTemporal(profile.series[i], options));
  }
  return file;
}

Result<std::string> RenderTemporal(const std::vector<Profile>& profiles, const TemporalSettings& settings,
                                   const temporal::TemporalOptions& options, TemporalView view) {
  std::vector<TemporalFile> files;
  std::vector<bool> matched(settings.series.size(), false);
  for (const Profile& p : profiles) {
    if (p.series.empty())
      return InvalidInput(p.metadata.source + ": holds no sampled series (format " + p.metadata.format + ")");
    files.push_back(AnalyzeProfileSeries(p, settings.series, options, &matched));
  }
  for (size_t k = 0; k < matched.size(); ++k)
    if (!matched[k])
      return InvalidInput("--series '" + settings.series[k] +
                          "' matches no series (names and indices: run without --series)");
  if (!settings.forecast.empty()) {
    std::vector<ForecastedSeries> forecasts = ForecastAll(files);
    return view == TemporalView::kJson ? RenderForecastJson(forecasts) : RenderForecastText(forecasts);
  }
  switch (view) {
    case TemporalView::kJson: return RenderTemporalJson(files, options);
    case TemporalView::kExplain: return RenderTemporalExplain(files, options);
    case TemporalView::kText: break;
  }
  return RenderTemporalText(files, options);
}

}  // namespace kraken
