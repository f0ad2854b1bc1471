// `kraken disagg`, GET /api/v1/profiles/{id}/disagg, the report's disagg section and the
// C API's kraken_disagg: the settings a request may give, their check, and the one path
// from profiles to disaggregation results and their document.
#pragma once

#include <string>
#include <vector>

#include "analysis/disagg/disagg_analysis.h"
#include "base/status.h"
#include "model/profile.h"
#include "report/disagg_output.h"

namespace kraken {

// The widest MIG-slice slowdown budget (%) a request may give: 10x the unsliced run time.
inline constexpr double kMaxSlowdownPctLimit = 1000;

struct DisaggSettings {
  std::vector<std::string> links;  // "BANDWIDTH,LATENCY" (100Gbps,5us); empty = the default links
  double price = 2.50;             // $ per GPU-hour for the savings
  double max_slowdown_pct = 10;    // expected slowdown (%) a MIG slice may cost
  bool explain = false;            // every input, formula part and assumption
  std::string reference;           // Alibaba DLRM trace file whose resource ratios are printed; may be empty
};

// The settings checked (messages name the CLI flags) and the reference trace read: what
// the analysis and the renderer take.
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
