#include "report/html_report.h"

#include <algorithm>
#include <cctype>

#include "analysis/demand.h"
#include "analysis/disagg/disagg_analysis.h"
#include "base/json_writer.h"
#include "model/device_catalog.h"
#include "report/disagg_output.h"
#include "report/series_timeline_json.h"
#include "report/web_assets.h"

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

// `kraken disagg --json` for the profiles, priced at the report's GPU-hour cost.
std::string RenderDisaggForReport(const std::vector<Profile>& profiles, double price) {
  disagg::DisaggOptions options;
  options.price_per_gpu_hour = price;
  std::vector<disagg::DisaggResult> results;
  for (const Profile& p : profiles) {
    WorkloadReport report = CharacterizeWorkload(p);
    for (const WorkloadDemand& d : DeriveDemands(p, report))
      results.push_back(disagg::AnalyzeDisaggregation(p, report, d, options));
  }
  if (results.empty()) return "null";
  return RenderDisaggJson(results, DisaggOutputOptions{});
}

// Inside a <script> element only "</" can end it early; in JSON it can appear only
// inside strings, where "<\/" means the same.
std::string EscapeForScriptElement(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    out += json[i];
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') out += '\\';
  }
  return out;
}

bool ContainsScriptEnd(std::string_view text) {
  constexpr std::string_view kEnd = "</script";
  auto it = std::search(text.begin(), text.end(), kEnd.begin(), kEnd.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != text.end();
}

std::string EscapeHtmlText(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

Result<std::string> RenderReportData(const std::vector<Profile>& profiles, const ReportSettings& settings) {
  if (profiles.empty()) return InvalidInput("the inputs hold no profile to report on");
  if (!(settings.gpu_hour_cost_usd >= 0)) return InvalidInput("--gpu-hour-cost must be >= 0 (US$ per GPU-hour)");
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
  data += ",\"disagg\":" + RenderDisaggForReport(profiles, settings.gpu_hour_cost_usd);
  data += ",\"series\":" + RenderSeriesTimelineJson(profiles);
  data += "}";
  return data;
}

Result<std::string> RenderHtmlReport(const std::string& title, const std::string& data_json) {
  const web::Asset* script = web::FindAsset("/assets/app.js");
  const web::Asset* style = web::FindAsset("/assets/app.css");
  if (script == nullptr || style == nullptr)
    return Status(StatusCode::kInternal, "the dashboard bundle is missing from this build");
  if (ContainsScriptEnd(script->data) || ContainsScriptEnd(style->data))
    return Status(StatusCode::kInternal, "the dashboard bundle holds '</script' and cannot be inlined");
  std::string html;
  html.reserve(script->data.size() + style->data.size() + data_json.size() + 1024);
  html += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>kraken report: " + EscapeHtmlText(title) + "</title>\n<style>\n";
  html += style->data;
  html += "\n</style>\n</head>\n<body>\n<header class=\"top\"><span class=\"brand\">kraken</span>";
  html += "<span class=\"muted\">report</span></header>\n";
  html += "<main id=\"app\"><p class=\"muted\">This report needs JavaScript to draw its charts.</p></main>\n";
  html += "<script type=\"application/json\" id=\"kraken-report-data\">";
  html += EscapeForScriptElement(data_json);
  html += "</script>\n<script>\n";
  html += script->data;
  html += "\n</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace kraken
