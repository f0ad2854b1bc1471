#include "app/report_request.h"

#include <filesystem>

#include "base/json_writer.h"
#include "model/device_catalog.h"
#include "report/html_report.h"
#include "report/series_timeline_json.h"

namespace kraken {
namespace {

constexpr const char* kCostSource =
    "default $2.50/GPU-hour: H100/H200 on-demand rental at about $2.00-2.50 per GPU-hour at major providers "
    "(SpendArk, May 2026); H100 SXM lists at $2.49-3.99 (Lambda, CoreWeave, RunPod, early 2026). Set "
    "--gpu-hour-cost to your own price.";

// Device memory of the GPU a profile ran on: as the input reported it, else the catalog's
// figure for the reported name. -1 when neither knows.
int64_t DeviceMemoryBytes(const Profile& profile) {
  for (const DeviceInfo& d : profile.devices) {
    if (d.memory_bytes > 0) return d.memory_bytes;
    if (const DeviceSpec* spec = MatchDeviceSpec(d.name); spec != nullptr && spec->memory_bytes > 0)
      return spec->memory_bytes;
  }
  return -1;
}

// The disagg section's settings: `kraken disagg --price COST --max-slowdown PCT`.
DisaggSettings DisaggSettingsOfReport(const ReportSettings& settings) {
  DisaggSettings disagg;
  disagg.price = settings.gpu_hour_cost_usd;
  disagg.max_slowdown_pct = settings.max_slowdown_pct;
  return disagg;
}

// `kraken disagg --json` for the profiles with the report's price and budget; null when
// they yield no workload.
Result<std::string> RenderDisaggForReport(const std::vector<Profile>& profiles, const ReportSettings& settings) {
  KRAKEN_ASSIGN_OR_RETURN(DisaggSetup setup, MakeDisaggSetup(DisaggSettingsOfReport(settings)));
  std::vector<disagg::DisaggResult> results = DisaggResultsOf(profiles, setup.options);
  if (results.empty()) return std::string("null");
  return RenderDisaggJson(results, setup.output);
}

}  // namespace

Status CheckReportSettings(const ReportSettings& settings) {
  // The price rule is disagg's (its section is priced at this cost); the message names this flag.
  if (!IsValidGpuHourPrice(settings.gpu_hour_cost_usd))
    return InvalidInput("--gpu-hour-cost must be >= 0 (US$ per GPU-hour)");
  KRAKEN_RETURN_IF_ERROR(MakeDisaggSetup(DisaggSettingsOfReport(settings)).status());
  return MakeCharacterizeOptions(settings.analyze).status();
}

std::string DefaultReportTitle(const std::vector<std::string>& inputs) {
  return inputs.empty() ? "" : std::filesystem::path(inputs.front()).filename().string();
}

Result<std::string> RenderReportData(const std::vector<Profile>& profiles, const ReportSettings& settings) {
  if (profiles.empty()) return InvalidInput("the inputs hold no profile to report on");
  KRAKEN_RETURN_IF_ERROR(CheckReportSettings(settings));
  KRAKEN_ASSIGN_OR_RETURN(CharacterizeOptions options, MakeCharacterizeOptions(settings.analyze));

  JsonWriter head(false);
  head.BeginObject().Field("kind", "kraken-report").Field("title", settings.title);
  head.Key("inputs").BeginArray();
  for (const std::string& input : settings.inputs) head.String(input);
  head.EndArray();
  head.Field("gpu_hour_cost_usd", settings.gpu_hour_cost_usd);
  head.Field("gpu_hour_cost_source", kCostSource);
  head.Key("device_memory_bytes").BeginArray();
  for (const Profile& p : profiles) {
    int64_t bytes = DeviceMemoryBytes(p);
    if (bytes > 0) {
      head.Int(bytes);
    } else {
      head.Null();
    }
  }
  head.EndArray().EndObject();
  std::string data = head.Take();
  data.pop_back();  // the closing brace: the documents below are appended as they are

  data += ",\"analyze\":" + RenderAnalysis(profiles, settings.analyze, options, /*json=*/true);
  KRAKEN_ASSIGN_OR_RETURN(std::string disagg, RenderDisaggForReport(profiles, settings));
  data += ",\"disagg\":" + disagg;
  data += ",\"series\":" + RenderSeriesTimelineJson(profiles);
  if (!settings.chargeback.prometheus.empty()) {
    Result<std::string> chargeback = RenderChargeback(settings.chargeback, ChargebackFormat::kJson);
    if (!chargeback.ok()) return chargeback.status().WithContext("the report's chargeback section");
    data += ",\"chargeback\":" + *chargeback;
  }
  data += "}";
  return data;
}

Result<std::string> RenderReport(const std::vector<Profile>& profiles, const ReportSettings& settings,
                                 bool data_only) {
  KRAKEN_ASSIGN_OR_RETURN(std::string data, RenderReportData(profiles, settings));
  if (data_only) return data;
  return RenderHtmlReport(settings.title, data);
}

}  // namespace kraken
