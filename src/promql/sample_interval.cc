#include "promql/sample_interval.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "promql/query_plan.h"

namespace kraken::promql {

int64_t SmallestSampleIntervalS(const std::vector<RangeSeries>& timestamp_series) {
  int64_t smallest_ms = 0;
  for (const RangeSeries& s : timestamp_series) {
    bool have_previous = false;
    int64_t previous_ms = 0;
    for (const std::string& text : s.values) {
      double seconds = std::strtod(text.c_str(), nullptr);
      if (!std::isfinite(seconds)) continue;
      int64_t sample_ms = std::llround(seconds * 1000.0);
      // Consecutive instants that saw the same sample repeat its time: only changes count.
      if (have_previous && sample_ms > previous_ms) {
        int64_t gap_ms = sample_ms - previous_ms;
        if (smallest_ms == 0 || gap_ms < smallest_ms) smallest_ms = gap_ms;
      }
      if (!have_previous || sample_ms > previous_ms) previous_ms = sample_ms;
      have_previous = true;
    }
  }
  return smallest_ms / 1000;  // whole seconds, rounded down: never coarser than the data
}

Result<StepChoice> ChooseStep(PrometheusClient& client, const std::string& timestamp_query, int64_t end_s,
                              int64_t range_s, int64_t asked_step_s, int64_t points_per_window) {
  StepChoice choice;
  if (asked_step_s != 0) {  // PlanRangeQuery refuses a negative one
    choice.step_s = asked_step_s;
    choice.reason = "as asked (--step)";
    return choice;
  }
  KRAKEN_ASSIGN_OR_RETURN(QueryPlan rule, PlanRangeQuery(end_s, range_s, 0, points_per_window));
  // The probe: the last hour (or 20 rule steps, or the whole range if shorter) at the rule's
  // step, so a few dozen points per series; the query names a few pods' series.
  int64_t probe_s = std::min(range_s, std::max<int64_t>(3600, 20 * rule.step_s));
  auto answer = client.QueryRange(timestamp_query, end_s - probe_s, end_s, rule.step_s);
  if (!answer.ok()) return answer.status().WithContext("measuring the sample interval");
  choice.sample_interval_s = SmallestSampleIntervalS(*answer);
  if (choice.sample_interval_s > rule.step_s) {
    choice.step_s = std::min(choice.sample_interval_s, range_s);
    choice.reason = "auto: the data's sample interval (" + std::to_string(choice.sample_interval_s) +
                    " s), coarser than the range rule's " + std::to_string(rule.step_s) + " s";
  } else {
    choice.step_s = rule.step_s;
    choice.reason = "auto: max(60 s, range / 600,000)" +
                    (choice.sample_interval_s > 0
                         ? std::string(", the data is sampled at least that often")
                         : std::string(", no samples in the last ") + std::to_string(probe_s) + " s to measure");
  }
  return choice;
}

}  // namespace kraken::promql
