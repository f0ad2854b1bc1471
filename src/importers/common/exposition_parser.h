// The line grammar of the Prometheus text exposition format 0.0.4, as dcgm-exporter and
// every other exporter write it. Pure: one line in, one classified line out; what the
// lines mean (series, units, devices) is the importer's business.
//
//   # HELP name docstring          docstring escapes: \\ and \n
//   # TYPE name counter|gauge|histogram|summary|untyped
//   # anything else                a comment
//   name{label="value",...} value [timestamp_ms]
//   name value [timestamp_ms]      label value escapes: \\ \" \n
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::prometheus {

enum class LineKind { kBlank, kHelp, kType, kComment, kSample, kInvalid };

struct Label {
  std::string name;
  std::string value;  // unescaped
};

struct ExpositionLine {
  LineKind kind = LineKind::kBlank;
  std::string metric_name;           // kHelp, kType, kSample
  std::string text;                  // kHelp: docstring (unescaped); kType: the type word
  std::vector<Label> labels;         // kSample, in the order written
  std::string_view value_text;       // kSample: the value as written (views the input line)
  double value = 0;                  // kSample: NaN and +-Inf are possible
  std::optional<int64_t> timestamp_ms;
  std::string error;                 // kInvalid: what is wrong, for messages
};

// Classifies `line` (without its '\n'; a trailing '\r' is ignored) into `out`, reusing
// its storage. Never fails: a line that breaks the grammar comes back as kInvalid.
void ParseExpositionLine(std::string_view line, ExpositionLine* out);

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool IsMetricName(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]*
bool IsLabelName(std::string_view name);

// A sample value as Go's ParseFloat reads it: decimal and exponent forms, and NaN, Inf,
// +Inf, -Inf in any letter case.
std::optional<double> ParseSampleValue(std::string_view text);

}  // namespace kraken::prometheus
