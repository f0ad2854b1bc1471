#include "app/temporal_request.h"

#include "analysis/temporal/series_selection.h"

namespace kraken {

Result<temporal::TemporalOptions> MakeTemporalOptions(const TemporalSettings& settings) {
  temporal::TemporalOptions options;
  KRAKEN_ASSIGN_OR_RETURN(options.horizons, temporal::ParseHorizons(settings.horizons));
  return options;
}

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
  switch (view) {
    case TemporalView::kJson: return RenderTemporalJson(files, options);
    case TemporalView::kExplain: return RenderTemporalExplain(files, options);
    case TemporalView::kText: break;
  }
  return RenderTemporalText(files, options);
}

}  // namespace kraken
