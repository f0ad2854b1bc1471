// `kraken disagg`, GET /api/v1/profiles/{id}/disagg, the report's disagg section and the
// C API's kraken_disagg: the settings a request may give, their check, and the one path
// from profiles to disaggregation results and their document.
#pragma once

#include <string>
#include <vector>

#include "analysis/disagg/disagg_analysis.h"
#include "app/slowdown_budget.h"
#include "base/status.h"
#include "model/profile.h"
#include "report/disagg_output.h"

namespace kraken {

// The one rule for a price of a GPU-hour (`kraken disagg --price`, the server's `price`,
// `kraken report --gpu-hour-cost`): a finite number >= 0. $0 is legitimate: the savings are
// then GPU-hours freed, at $0.
bool IsValidGpuHourPrice(double usd);

struct DisaggSettings {
  std::vector<std::string> links;  // "BANDWIDTH,LATENCY" (100Gbps,5us); empty = the default links
  double price = 2.50;             // $ per GPU-hour for the savings
  double max_slowdown_pct = kDefaultMaxSlowdownPct;  // expected slowdown (%) a MIG slice may cost
  bool explain = false;            // every input, formula part and assumption
  std::string reference;           // Alibaba DLRM trace file whose resource ratios are printed; may be empty
};

// The settings checked and the reference trace read: what the analysis and the renderer
// take. The one place price and max_slowdown are validated (max_slowdown by
// SlowdownBudgetFromPct, the rule of every MIG budget): the CLI, the server and the C API
// hand its message on as it is, so it names the setting as the query parameter and option
// key spell it, then the CLI flag ("price (--price) must be >= 0 ..., got -1").
struct DisaggSetup {
  disagg::DisaggOptions options;
  DisaggOutputOptions output;
};
Result<DisaggSetup> MakeDisaggSetup(const DisaggSettings& settings);

// Characterizes every profile and analyses each workload it yields (one per GPU or phase
// of sampled profiles).
std::vector<disagg::DisaggResult> DisaggResultsOf(const std::vector<Profile>& profiles,
                                                  const disagg::DisaggOptions& options);

// The document; InvalidInput when the profiles yield no workload.
Result<std::string> RenderDisagg(const std::vector<Profile>& profiles, const DisaggSetup& setup, bool json);

}  // namespace kraken
