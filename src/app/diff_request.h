// `kraken diff A B`, the C API's kraken_diff and Python's kraken.diff: the one path from
// two sets of profiles (A = before, B = after; each one or more ranks) to the trace diff
// and its document (text, or JSON with the keys of docs/json-output.md "kraken diff").
#pragma once

#include <string>
#include <vector>

#include "analysis/insights/trace_diff.h"
#include "base/status.h"
#include "model/profile.h"

namespace kraken {

struct DiffSettings {
  size_t top = 15;     // entries per list
  std::string a_name;  // what side A is called in the document (its argument)
  std::string b_name;
};

// InvalidInput (naming the side) when a side has no profile with a GPU timeline.
Result<TraceDiff> DiffProfiles(const std::vector<Profile>& a, const std::vector<Profile>& b,
                               const DiffSettings& settings);

Result<std::string> RenderDiff(const std::vector<Profile>& a, const std::vector<Profile>& b,
                               const DiffSettings& settings, bool json);

// The JSON document alone.
std::string RenderDiffJson(const TraceDiff& diff, const DiffSettings& settings);

// The self-contained HTML page of the comparison (`kraken diff --html`): the dashboard's
// bundle in report mode fed {"kind": "kraken-diff-report", "title", "inputs": [A, B],
// "diff": <the JSON document>}.
Result<std::string> RenderDiffReport(const TraceDiff& diff, const DiffSettings& settings);

}  // namespace kraken
