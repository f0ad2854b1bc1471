// The exposition line grammar on small inline lines: every construct of format 0.0.4
// that exporters write, and the broken lines a truncated or corrupted file holds.
#include "importers/common/exposition_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <string>

#include "model/dcgm_metric_catalog.h"

namespace kraken::prometheus {
namespace {

ExpositionLine Parse(std::string_view text) {
  ExpositionLine line;
  ParseExpositionLine(text, &line);
  return line;
}

TEST(ExpositionParserTest, SampleWithLabelsAsDcgmExporterWritesIt) {
  ExpositionLine line = Parse(
      R"(DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-34319582-d595-d1c7-d1d2-179bcfa61660",device="nvidia0",Hostname="ub20-a100-k8s"} 409.692000)");
  ASSERT_EQ(line.kind, LineKind::kSample) << line.error;
  EXPECT_EQ(line.metric_name, "DCGM_FI_DEV_POWER_USAGE");
  ASSERT_EQ(line.labels.size(), 4u);
  EXPECT_EQ(line.labels[1].name, "UUID");
  EXPECT_EQ(line.labels[1].value, "GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
  EXPECT_EQ(line.labels[3].value, "ub20-a100-k8s");
  EXPECT_EQ(line.value_text, "409.692000");
  EXPECT_DOUBLE_EQ(line.value, 409.692);
  EXPECT_FALSE(line.timestamp_ms.has_value());
}

TEST(ExpositionParserTest, SampleWithoutLabelsAndWithTimestamp) {
  ExpositionLine line = Parse("DCGM_FI_DEV_FAN_SPEED 0");
  ASSERT_EQ(line.kind, LineKind::kSample);
  EXPECT_TRUE(line.labels.empty());
  EXPECT_EQ(line.value, 0);

  line = Parse("http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000");
  ASSERT_EQ(line.kind, LineKind::kSample) << line.error;
  EXPECT_EQ(line.value, 1027);
  ASSERT_TRUE(line.timestamp_ms.has_value());
  EXPECT_EQ(*line.timestamp_ms, 1395066363000);

  line = Parse("m {a=\"b\"}7");  // blanks before '{', none after '}'
  ASSERT_EQ(line.kind, LineKind::kSample) << line.error;
  EXPECT_EQ(line.labels.at(0).value, "b");
  EXPECT_EQ(line.value, 7);

  line = Parse("up{} -3 -1");  // empty label set, negative value and timestamp
  ASSERT_EQ(line.kind, LineKind::kSample) << line.error;
  EXPECT_EQ(line.value, -3);
  EXPECT_EQ(*line.timestamp_ms, -1);
}

TEST(ExpositionParserTest, LabelValueEscapes) {
  ExpositionLine line = Parse(R"(msdos_file_access_time_seconds{path="C:\\DIR\\FILE.TXT",error="Cannot find file:\n\"FILE.TXT\""} 1.458255915e9)");
  ASSERT_EQ(line.kind, LineKind::kSample) << line.error;
  ASSERT_EQ(line.labels.size(), 2u);
  EXPECT_EQ(line.labels[0].value, "C:\\DIR\\FILE.TXT");
  EXPECT_EQ(line.labels[1].value, "Cannot find file:\n\"FILE.TXT\"");
  EXPECT_DOUBLE_EQ(line.value, 1.458255915e9);
  // A '}' and ',' inside a quoted value are text, not syntax.
  line = Parse(R"(m{a="x}y,z",b="") 1)");
  EXPECT_EQ(line.kind, LineKind::kInvalid);
  line = Parse(R"(m{a="x}y,z",b=""} 1)");
  ASSERT_EQ(line.kind, LineKind::kSample) << line.error;
  EXPECT_EQ(line.labels[0].value, "x}y,z");
  EXPECT_EQ(line.labels[1].value, "");
}

TEST(ExpositionParserTest, SpecialFloatValuesAndHugeIntegers) {
  ExpositionLine line = Parse("m NaN");
  ASSERT_EQ(line.kind, LineKind::kSample);
  EXPECT_TRUE(std::isnan(line.value));
  line = Parse("m +Inf");
  ASSERT_EQ(line.kind, LineKind::kSample);
  EXPECT_TRUE(std::isinf(line.value) && line.value > 0);
  line = Parse("m -Inf");
  ASSERT_EQ(line.kind, LineKind::kSample);
  EXPECT_TRUE(std::isinf(line.value) && line.value < 0);
  line = Parse("DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\"} 9223372036854775794");
  ASSERT_EQ(line.kind, LineKind::kSample);
  EXPECT_EQ(line.value_text, "9223372036854775794");
  EXPECT_TRUE(IsIntegerLiteral(line.value_text));
  line = Parse("m 1e+06");
  EXPECT_EQ(line.value, 1e6);
  EXPECT_FALSE(IsIntegerLiteral("1e+06"));
  EXPECT_FALSE(IsIntegerLiteral("409.692000"));
}

TEST(ExpositionParserTest, HelpAndTypeLines) {
  ExpositionLine line = Parse("# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).");
  ASSERT_EQ(line.kind, LineKind::kHelp);
  EXPECT_EQ(line.metric_name, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(line.text, "SM clock frequency (in MHz).");
  line = Parse("# HELP DCGM_FI_DEV_SLOWDOWN_TEMP");  // no help text, as in the DataDog fixture
  ASSERT_EQ(line.kind, LineKind::kHelp);
  EXPECT_EQ(line.text, "");
  line = Parse(R"(# HELP m a\\b\nc)");
  EXPECT_EQ(line.text, "a\\b\nc");
  line = Parse("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter");
  ASSERT_EQ(line.kind, LineKind::kType);
  EXPECT_EQ(line.text, "counter");
  EXPECT_EQ(Parse("# TYPE m banana").kind, LineKind::kInvalid);
  EXPECT_EQ(Parse("# TYPE m gauge extra").kind, LineKind::kInvalid);
  EXPECT_EQ(Parse("# NOTE The following metrics all have dummy values").kind, LineKind::kComment);
  EXPECT_EQ(Parse("# HELP").kind, LineKind::kComment);
  EXPECT_EQ(Parse("#").kind, LineKind::kComment);
}

TEST(ExpositionParserTest, BlankLinesAndCrLf) {
  EXPECT_EQ(Parse("").kind, LineKind::kBlank);
  EXPECT_EQ(Parse(" \t\r").kind, LineKind::kBlank);
  ExpositionLine line = Parse("m{a=\"b\"} 2.5 17\r");
  ASSERT_EQ(line.kind, LineKind::kSample) << line.error;
  EXPECT_EQ(line.value, 2.5);
  EXPECT_EQ(*line.timestamp_ms, 17);
  line = Parse("# TYPE m gauge\r");
  ASSERT_EQ(line.kind, LineKind::kType);
  EXPECT_EQ(line.text, "gauge");
}

TEST(ExpositionParserTest, BrokenLinesAreInvalidWithAReason) {
  for (std::string_view text : std::initializer_list<std::string_view>{
           R"(DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-)",  // truncated inside a label value
           R"(DCGM_FI_DEV_GPU_UTIL{gpu="0")",             // truncated label set
           "DCGM_FI_DEV_GPU_UTIL",                        // no value
           "DCGM_FI_DEV_GPU_UTIL ",                       // no value after the blank
           "m 12abc",                                     // bad value
           "m-1",                                         // no blank before the value
           "m 1 2 3",                                     // text after the timestamp
           "m 1 1.5",                                     // timestamp must be an integer
           "m 1 99999999999999999999",                    // timestamp beyond int64
           R"(m{a="1",a="2"} 1)",                         // duplicate label
           R"(m{a="\q"} 1)",                              // unknown escape
           R"(m{1a="x"} 1)",                              // bad label name
           R"(m{a=x} 1)",                                 // unquoted value
           "m ++1",
           "{\"traceEvents\": [",
           "timestamp, name, pci.bus_id, utilization.gpu [%]",
           "\"ID\",\"Process ID\",\"Process Name\"",
           "Name,Profile,Memory_footprint,SM_usage,Duration",
           "DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).",
           std::string_view("\x00\x01\xff\xfe junk", 10),
       }) {
    ExpositionLine line = Parse(text);
    EXPECT_EQ(line.kind, LineKind::kInvalid) << text;
    EXPECT_FALSE(line.error.empty()) << text;
  }
}

TEST(ExpositionParserTest, NamesFollowTheGrammar) {
  EXPECT_TRUE(IsMetricName("DCGM_FI_DEV_GPU_UTIL"));
  EXPECT_TRUE(IsMetricName("job:rate5m"));
  EXPECT_FALSE(IsMetricName("5m"));
  EXPECT_FALSE(IsMetricName(""));
  EXPECT_TRUE(IsLabelName("GPU_I_ID"));
  EXPECT_FALSE(IsLabelName("a:b"));
}

}  // namespace
}  // namespace kraken::prometheus
