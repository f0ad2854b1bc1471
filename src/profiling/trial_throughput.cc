// GCC 12 reports a false -Wmaybe-uninitialized inside libstdc++'s std::regex automaton
// (std::function moves) under -O2 with the sanitizers: silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)  // clang (make fuzz) has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "profiling/trial_throughput.h"

#include <algorithm>
#include <cmath>

#include "base/text.h"

namespace kraken::profiling {
namespace {

std::optional<double> ThroughputNumber(std::string_view text) {
  std::optional<double> value = ParseDouble(text);
  if (!value) value = ParseHumanNumber(text);
  if (!value || !std::isfinite(*value) || *value < 0) return std::nullopt;
  return value;
}

}  // namespace

Result<ThroughputPattern> ThroughputPattern::Compile(const std::string& pattern) {
  ThroughputPattern p;
  p.pattern_ = pattern;
  // std::regex reports a bad pattern only by throwing; this is the one place kraken lets
  // an exception out of the standard library, and it is turned into a Status right here.
  try {
    p.regex_ = std::make_shared<const std::regex>(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& error) {
    return InvalidInput("--throughput-regex '" + pattern + "' is not a valid regular expression: " + error.what());
  }
  if (p.regex_->mark_count() < 1)
    return InvalidInput("--throughput-regex '" + pattern +
                        "' has no capture group: put the number in parentheses, e.g. 'throughput: ([0-9.]+)'");
  return p;
}

std::optional<ThroughputPattern::Match> ThroughputPattern::Find(std::string_view line) const {
  if (line.size() > kMaxMatchedLineBytes) line = line.substr(0, kMaxMatchedLineBytes);
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(line.begin(), line.end(), m, *regex_)) return std::nullopt;
  Match match;
  if (m.size() > 1 && m[1].matched) match.text = m[1].str();
  match.number = ThroughputNumber(Trim(match.text));
  return match;
}

void LineSplitter::Feed(std::string_view bytes, const std::function<void(std::string_view)>& on_line) {
  for (char c : bytes) {
    if (c == '\n' || c == '\r') {
      // "\r\n" ends one line, not two: an empty line after '\r' is dropped.
      if (!partial_.empty()) on_line(partial_);
      partial_.clear();
    } else if (partial_.size() < kMaxLineBytes) {
      partial_ += c;
    }
  }
}

void LineSplitter::Finish(const std::function<void(std::string_view)>& on_line) {
  if (!partial_.empty()) on_line(partial_);
  partial_.clear();
}

ThroughputFigures SummarizeThroughput(const std::vector<ThroughputReading>& readings, int64_t warmup_ns,
                                      int64_t unparsable) {
  ThroughputFigures f;
  f.unparsable = unparsable;
  std::vector<double> counted;
  for (const ThroughputReading& r : readings) {
    if (r.time_ns < warmup_ns) {
      ++f.warmup_readings;
      continue;
    }
    counted.push_back(r.value);
    f.last = r.value;
  }
  f.readings = static_cast<int64_t>(counted.size());
  if (counted.empty()) return f;
  std::sort(counted.begin(), counted.end());
  size_t n = counted.size();
  f.median = n % 2 == 1 ? counted[n / 2] : (counted[n / 2 - 1] + counted[n / 2]) / 2;
  f.min = counted.front();
  f.max = counted.back();
  return f;
}

std::optional<double> ParseThroughputFile(std::string_view content) {
  std::string_view last;
  for (std::string_view line : Split(content, '\n'))
    if (!Trim(line).empty()) last = Trim(line);
  if (last.empty()) return std::nullopt;
  return ThroughputNumber(last);
}

}  // namespace kraken::profiling
