// Rendering of `kraken temporal` results: a readable table, one JSON document (keys in
// docs/temporal.md) or the --explain view (inputs, each part of the computation with its
// value, assumptions).
#pragma once

#include <string>
#include <vector>

#include "analysis/temporal/temporal_analysis.h"

namespace kraken {

// The analysed series of one input file.
struct TemporalFile {
  std::string source;  // file (or archive member) name
  std::string format;  // importer that read it
  std::string clock;   // what the file's timestamps are, when the importer said
  std::vector<size_t> indices;  // position of each report's series in the profile
  std::vector<temporal::TemporalReport> reports;
};

std::string RenderTemporalText(const std::vector<TemporalFile>& files, const temporal::TemporalOptions& options);
std::string RenderTemporalJson(const std::vector<TemporalFile>& files, const temporal::TemporalOptions& options);
std::string RenderTemporalExplain(const std::vector<TemporalFile>& files, const temporal::TemporalOptions& options);

// Axis amounts for people: "57s", "12m", "3h24m", "1d2h", "7d"; "120 it" on iteration axes.
std::string FormatAxisSpan(int64_t amount, SampleAxis axis);
// A position on the axis: "2020-05-01 00:00:00" (Unix time, UTC) or "iteration 120".
std::string FormatAxisTime(int64_t position, SampleAxis axis);
// Where in the cycle a phase offset lies: clock time "14:30" for a daily period,
// "Thu 14:30" for a weekly one (phases count from the Unix epoch, a Thursday 00:00),
// "+1h20m" otherwise.
std::string FormatPhase(int64_t offset, int64_t period, SampleAxis axis);

}  // namespace kraken
