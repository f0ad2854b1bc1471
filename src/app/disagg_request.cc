#include "app/disagg_request.h"

#include <cmath>
#include <memory>

#include "analysis/demand.h"
#include "analysis/disagg/fleet_reference.h"
#include "base/byte_stream.h"
#include "base/text_table.h"

namespace kraken {
namespace {

Result<std::string> ReadMaybeGzipped(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ByteStream> stream, OpenFileStream(path));
  KRAKEN_ASSIGN_OR_RETURN(std::string head, ReadUpTo(*stream, 2));
  std::unique_ptr<ByteStream> rest = MakePrefixedStream(head, std::move(stream));
  if (LooksGzipped(head)) rest = MakeGzipStream(std::move(rest));
  return ReadAll(*rest);
}

}  // namespace

bool IsValidGpuHourPrice(double usd) { return std::isfinite(usd) && usd >= 0; }

Result<DisaggSetup> MakeDisaggSetup(const DisaggSettings& settings) {
  DisaggSetup setup;
  setup.options.price_per_gpu_hour = settings.price;
  if (!IsValidGpuHourPrice(settings.price))
    return InvalidInput("price (--price) must be >= 0 $ per GPU-hour, got " + FormatGeneral(settings.price));
  KRAKEN_ASSIGN_OR_RETURN(setup.options.mig_max_slowdown, SlowdownBudgetFromPct(settings.max_slowdown_pct));
  for (const std::string& text : settings.links) {
    KRAKEN_ASSIGN_OR_RETURN(disagg::RemoteLink link, disagg::ParseRemoteLink(text));
    setup.options.links.push_back(link);
  }
  setup.output.explain = settings.explain;
  if (!settings.reference.empty()) {
    auto text = ReadMaybeGzipped(settings.reference);
    if (!text.ok()) return text.status().WithContext(settings.reference);
    auto reference = disagg::SummarizeDisaggregatedFleet(*text);
    if (!reference.ok()) return reference.status().WithContext(settings.reference);
    setup.output.reference = *reference;
    setup.output.reference_source = settings.reference;
  }
  return setup;
}

std::vector<disagg::DisaggResult> DisaggResultsOf(const std::vector<Profile>& profiles,
                                                  const disagg::DisaggOptions& options) {
  std::vector<disagg::DisaggResult> results;
  for (const Profile& p : profiles) {
    WorkloadReport report = CharacterizeWorkload(p);
    for (const WorkloadDemand& d : DeriveDemands(p, report))
      results.push_back(disagg::AnalyzeDisaggregation(p, report, d, options));
  }
  return results;
}

Result<std::string> RenderDisagg(const std::vector<Profile>& profiles, const DisaggSetup& setup, bool json) {
  std::vector<disagg::DisaggResult> results = DisaggResultsOf(profiles, setup.options);
  if (results.empty()) return InvalidInput("the inputs hold no workload to analyse");
  return json ? RenderDisaggJson(results, setup.output) : RenderDisaggText(results, setup.output);
}

}  // namespace kraken
