// `kraken report`'s page: one self-contained HTML file. The page is the dashboard's bundle
// (web/, embedded in the binary) in report mode, fed with one JSON document inlined in the
// page (app/report_request.h assembles it), so the report and the dashboard render the
// same data with the same code.
#pragma once

#include <string>

#include "base/status.h"

namespace kraken {

// The HTML page: the embedded stylesheet and script inlined, `data_json` in a
// <script type="application/json"> element. Fails only when the bundle could not be inlined
// safely (it holds "</script").
Result<std::string> RenderHtmlReport(const std::string& title, const std::string& data_json);

}  // namespace kraken
