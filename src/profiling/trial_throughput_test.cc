// Throughput from the workload's own output: the regex's first group, line splitting,
// warmup exclusion and the median, and the throughput file's last line.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // libstdc++ regex under GCC 12 (see trial_throughput.cc)
#include "profiling/trial_throughput.h"

#include <gtest/gtest.h>

namespace kraken::profiling {
namespace {

TEST(TrialThroughputTest, FirstCaptureGroupIsTheNumber) {
  auto pattern = ThroughputPattern::Compile("throughput: ([0-9.,]+) samples/s");
  ASSERT_TRUE(pattern.ok());
  auto m = pattern->Find("step 40 | throughput: 1,234.5 samples/s | loss 0.3");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "1,234.5");
  EXPECT_EQ(m->number, 1234.5);
  EXPECT_FALSE(pattern->Find("loss 0.3"));
  auto odd = pattern->Find("throughput: ... samples/s");  // matches, but is no number
  ASSERT_TRUE(odd);
  EXPECT_FALSE(odd->number);
  std::string longer(10000, 'x');
  EXPECT_FALSE(pattern->Find(longer + "throughput: 5 samples/s"));  // past kMaxMatchedLineBytes
}

TEST(TrialThroughputTest, BadPatternsAreOneLineErrors) {
  auto bad = ThroughputPattern::Compile("throughput: ([0-9.+");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("--throughput-regex 'throughput: ([0-9.+' is not a valid regular expression: ",
                                         0),
            0u)
      << bad.status().message();
  EXPECT_EQ(bad.status().message().find('\n'), std::string::npos);
  EXPECT_EQ(ThroughputPattern::Compile("throughput: [0-9.]+").status().message(),
            "--throughput-regex 'throughput: [0-9.]+' has no capture group: put the number in parentheses, e.g. "
            "'throughput: ([0-9.]+)'");
}

TEST(TrialThroughputTest, LinesSplitOnNewlinesAndCarriageReturns) {
  LineSplitter splitter;
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  splitter.Feed("a\r\nb", collect);
  splitter.Feed("c\n\nprogress 1\rprogress 2\rtail", collect);
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "bc", "progress 1", "progress 2"}));
  splitter.Finish(collect);
  EXPECT_EQ(lines.back(), "tail");
  // A line without end is cut at kMaxLineBytes; the next line is whole again.
  // (Appended in place: GCC 12 warns, wrongly, on `std::string(n, c) + "..."` here.)
  std::string endless_line(kMaxLineBytes + 100, 'x');
  endless_line.append("\nok\n");
  splitter.Feed(endless_line, collect);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[5].size(), kMaxLineBytes);
  EXPECT_EQ(lines[6], "ok");
}

TEST(TrialThroughputTest, OnlyReadingsAfterTheWarmupCount) {
  // 999 during the warmup (t < 300 ms), then 120, 118, 124, 120.
  std::vector<ThroughputReading> readings = {
      {1'000'000, 999}, {299'999'999, 999}, {300'000'000, 120}, {350'000'000, 118}, {400'000'000, 124},
      {450'000'000, 120}};
  ThroughputFigures f = SummarizeThroughput(readings, 300'000'000, 2);
  EXPECT_EQ(f.readings, 4);
  EXPECT_EQ(f.warmup_readings, 2);
  EXPECT_EQ(f.unparsable, 2);
  EXPECT_EQ(f.median, 120);  // (120 + 120) / 2
  EXPECT_EQ(f.last, 120);
  EXPECT_EQ(f.min, 118);
  EXPECT_EQ(f.max, 124);
  readings.pop_back();
  EXPECT_EQ(SummarizeThroughput(readings, 300'000'000).median, 120);  // 118, 120, 124
  EXPECT_EQ(SummarizeThroughput(readings, 300'000'000).last, 124);
  ThroughputFigures none = SummarizeThroughput(readings, 1'000'000'000);
  EXPECT_EQ(none.readings, 0);
  EXPECT_EQ(none.warmup_readings, 5);
}

TEST(TrialThroughputTest, FileHoldsItsLastNonEmptyLine) {
  EXPECT_EQ(ParseThroughputFile("55.5\n"), 55.5);
  EXPECT_EQ(ParseThroughputFile("10\n20\n 30.25 \n\n"), 30.25);
  EXPECT_FALSE(ParseThroughputFile(""));
  EXPECT_FALSE(ParseThroughputFile("\n\n"));
  EXPECT_FALSE(ParseThroughputFile("fast"));
  EXPECT_FALSE(ParseThroughputFile("-3"));
  EXPECT_FALSE(ParseThroughputFile("nan"));
}

}  // namespace
}  // namespace kraken::profiling
