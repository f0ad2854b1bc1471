// `kraken report` and the C API's kraken_report: the settings of a report and the one
// path from profiles to its data document (the `kraken analyze --json` and `kraken disagg
// --json` documents plus the sampled series) and the HTML page that renders it.
#pragma once

#include <string>
#include <vector>

#include "app/analyze_request.h"
#include "app/cost_request.h"
#include "app/disagg_request.h"
#include "base/status.h"
#include "model/profile.h"

namespace kraken {

// The default price of a GPU-hour, the same as `kraken disagg --price`: on-demand rental
// of an H100/H200 settled at about $2.00-2.50 per GPU-hour at the major providers in 2026
// (SpendArk, May 2026) and H100 SXM lists at $2.49-3.99 at Lambda/CoreWeave/RunPod.
// docs/report.md names the sources.
inline constexpr double kDefaultGpuHourCostUsd = 2.50;

struct ReportSettings {
  AnalyzeSettings analyze;  // --device; the rest keeps `kraken analyze`'s defaults
  double gpu_hour_cost_usd = kDefaultGpuHourCostUsd;  // also the disagg section's price (--price)
  // The disagg section's MIG-slice budget: `kraken disagg --max-slowdown` (%).
  double max_slowdown_pct = kDefaultMaxSlowdownPct;
  std::string title;                // shown at the top; default: the first input's name
  std::vector<std::string> inputs;  // the arguments, for the record
  // With chargeback.prometheus set, the document carries `kraken cost chargeback --json`
  // of that Prometheus as "chargeback" and the page renders its table (docs/report.md).
  ChargebackSettings chargeback;
};

// The settings checked (messages name the CLI flags), so that a typo fails before the
// inputs are read.
Status CheckReportSettings(const ReportSettings& settings);

// The first input's file name: the title when none is given.
std::string DefaultReportTitle(const std::vector<std::string>& inputs);

// The data document the page renders:
// {"kind": "kraken-report", "title", "inputs": [...], "gpu_hour_cost_usd",
//  "gpu_hour_cost_source", "device_memory_bytes": [per rank, or null], "analyze": {...},
//  "disagg": {...} or null, "series": {...}, "chargeback": {...} (only with a Prometheus)}.
Result<std::string> RenderReportData(const std::vector<Profile>& profiles, const ReportSettings& settings);

// The HTML page, or with `data_only` the data document.
Result<std::string> RenderReport(const std::vector<Profile>& profiles, const ReportSettings& settings,
                                 bool data_only);

}  // namespace kraken
