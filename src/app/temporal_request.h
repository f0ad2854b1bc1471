// `kraken temporal`, POST /api/v1/temporal and the C API's kraken_temporal: the settings a
// request may give and the one path from profiles to analysed series and their document.
#pragma once

#include <string>
#include <vector>

#include "analysis/temporal/temporal_analysis.h"
#include "base/status.h"
#include "model/profile.h"
#include "report/temporal_output.h"

namespace kraken {

struct TemporalSettings {
  std::vector<std::string> series;   // index, exact name or part of names; empty = every series
  std::string horizons = "1h,24h";   // forecast horizons
  // "" = the periodicity and back-test report; a horizon ("24h") = the forecast values up
  // to it with prediction intervals (replaces the horizons).
  std::string forecast;
};

enum class TemporalView { kText, kJson, kExplain };

// The horizons parsed (messages name the --horizon flag).
Result<temporal::TemporalOptions> MakeTemporalOptions(const TemporalSettings& settings);

// The selected series of one profile, analysed; marks in `matched` which selectors named
// a series.
TemporalFile AnalyzeProfileSeries(const Profile& profile, const std::vector<std::string>& selectors,
                                  const temporal::TemporalOptions& options, std::vector<bool>* matched);

// Every profile's selected series in the chosen view. A profile without series, or a
// selector that names no series in any profile, is InvalidInput.
Result<std::string> RenderTemporal(const std::vector<Profile>& profiles, const TemporalSettings& settings,
                                   const temporal::TemporalOptions& options, TemporalView view);

}  // namespace kraken
