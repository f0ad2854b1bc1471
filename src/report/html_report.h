// `kraken report`: one self-contained HTML file. The page is the dashboard's bundle
// (web/, embedded in the binary) in report mode, fed with one JSON document inlined in
// the page: the `kraken analyze --json` and `kraken disagg --json` documents plus the
// sampled series, so the report and the dashboard render the same data with the same code.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"
#include "report/analyze_request.h"

namespace kraken {

// The default price of a GPU-hour, the same as `kraken disagg --price`: on-demand rental
// of an H100/H200 settled at about $2.00-2.50 per GPU-hour at the major providers in 2026
// (SpendArk, May 2026) and H100 SXM lists at $2.49-3.99 at Lambda/CoreWeave/RunPod.
// docs/report.md names the sources.
inline constexpr double kDefaultGpuHourCostUsd = 2.50;

struct ReportSettings {
  AnalyzeSettings analyze;  // --device; the rest keeps `kraken analyze`'s defaults
  double gpu_hour_cost_usd = kDefaultGpuHourCostUsd;
  std::string title;                // shown at the top; default: the first input's name
  std::vector<std::string> inputs;  // the arguments, for the record
};

// The data document the page renders:
// {"kind": "kraken-report", "title", "inputs": [...], "gpu_hour_cost_usd",
//  "gpu_hour_cost_source", "device_memory_bytes": [per rank, or null], "analyze": {...},
//  "disagg": {...} or null, "series": {...}}.
Result<std::string> RenderReportData(const std::vector<Profile>& profiles, const ReportSettings& settings);

// The HTML page: the embedded stylesheet and script inlined, `data_json` in a
// <script type="application/json"> element. Fails only when the bundle could not be inlined
// safely (it holds "</script").
Result<std::string> RenderHtmlReport(const std::string& title, const std::string& data_json);

}  // namespace kraken
