// The --max-slowdown setting of every analysis that recommends a MIG slice (`kraken disagg`
// and the report's disaggregation section, `kraken mig-plan`, the pooling analysis of
// `kraken analyze --prometheus` and `kraken annotate`): the expected slowdown in % a slice
// may cost, one default, one range and one message.
#pragma once

#include <string>

#include "base/status.h"
#include "base/text_table.h"

namespace kraken {

// The widest MIG-slice slowdown budget (%) a request may give: 10x the unsliced run time.
inline constexpr double kMaxSlowdownPctLimit = 1000;
// The budget (%) when a request gives none (`--max-slowdown`'s default, the report's too).
inline constexpr double kDefaultMaxSlowdownPct = 10;

// `pct` checked (0-1000, not NaN) and returned as a ratio (10 -> 0.10). The message names
// the setting as the option key and query parameter spell it, then the CLI flag:
// "max_slowdown (--max-slowdown) must be between 0 and 1000 (%), got 1001".
inline Result<double> SlowdownBudgetFromPct(double pct) {
  if (!(pct >= 0 && pct <= kMaxSlowdownPctLimit)) {
    return InvalidInput("max_slowdown (--max-slowdown) must be between 0 and " + FormatGeneral(kMaxSlowdownPctLimit) +
                        " (%), got " + FormatGeneral(pct));
  }
  return pct / 100;
}

}  // namespace kraken
