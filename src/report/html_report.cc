#include "report/html_report.h"

#include <algorithm>
#include <cctype>

#include "report/web_assets.h"

namespace kraken {
namespace {

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
