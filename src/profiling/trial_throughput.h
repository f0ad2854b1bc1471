// Throughput as the workload itself reports it, for `kraken trial`: a number in the lines
// it prints (the first capture group of --throughput-regex) or the number it writes to a
// file (--throughput-file). Only readings taken after the warmup count. kraken never
// derives a throughput from GPU counters: without either source it says "not measured".
// Pure: the caller feeds bytes and times.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::profiling {

// Lines longer than this are matched on their first kMaxMatchedLineBytes only: libstdc++'s
// regex recurses per character and a multi-megabyte line (a progress bar without newlines)
// must not exhaust the stack.
inline constexpr size_t kMaxMatchedLineBytes = 4096;

class ThroughputPattern {
 public:
  // Fails (one line, naming the pattern) when it is not a valid ECMAScript regex or has no
  // capture group.
  static Result<ThroughputPattern> Compile(const std::string& pattern);

  // The first capture group of the first match, when the line matches. `number` is set
  // when the group is a finite, non-negative number ("1,234.5" allowed).
  struct Match {
    std::string text;
    std::optional<double> number;
  };
  std::optional<Match> Find(std::string_view line) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<const std::regex> regex_;  // shared: the pattern is copied per candidate
};

// Splits a byte stream into lines ("\n" or "\r\n"; "\r" alone too, as progress output uses).
// A line longer than kMaxLineBytes is cut there (the rest up to its end is dropped), so a
// workload that never prints a newline cannot grow kraken's memory.
inline constexpr size_t kMaxLineBytes = 64 * 1024;
class LineSplitter {
 public:
  void Feed(std::string_view bytes, const std::function<void(std::string_view line)>& on_line);
  // The last line when the stream ended without a newline.
  void Finish(const std::function<void(std::string_view line)>& on_line);

 private:
  std::string partial_;
};

struct ThroughputReading {
  int64_t time_ns = 0;  // since the candidate's command started
  double value = 0;
};

// What the readings of one candidate say.
struct ThroughputFigures {
  int64_t readings = 0;         // counted: taken after the warmup
  int64_t warmup_readings = 0;  // ignored: taken during the warmup
  int64_t unparsable = 0;       // matches whose group was not a number (after the warmup)
  double median = 0;            // of the counted readings (mean of the middle two when even)
  double last = 0;
  double min = 0;
  double max = 0;
};

// Readings at time_ns >= warmup_ns count; `unparsable` is passed through.
ThroughputFigures SummarizeThroughput(const std::vector<ThroughputReading>& readings, int64_t warmup_ns,
                                      int64_t unparsable = 0);

// The number a throughput file holds: its last non-empty line, trimmed; nullopt when that
// is not a finite, non-negative number (or the file is empty).
std::optional<double> ParseThroughputFile(std::string_view content);

}  // namespace kraken::profiling
