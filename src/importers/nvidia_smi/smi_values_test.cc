// Values, units and clocks as nvidia-smi prints them.
#include "importers/nvidia_smi/smi_values.h"

#include <gtest/gtest.h>

#include "importers/nvidia_smi/capture_sections.h"

namespace kraken::nvidia_smi {
namespace {

TEST(SmiValuesTest, NumbersWithUnitsAndPlaceholders) {
  SmiValue used = ParseSmiValue(" 2566 MiB");
  EXPECT_EQ(used.kind, ValueKind::kNumber);
  EXPECT_EQ(used.number, 2566);
  EXPECT_EQ(used.unit, "MiB");
  EXPECT_EQ(ParseSmiValue("100.00 %").number, 100);
  EXPECT_EQ(ParseSmiValue("16x").unit, "x");
  EXPECT_EQ(ParseSmiValue("-8 C").number, -8);
  EXPECT_EQ(ParseSmiValue("9.0").unit, "");
  for (const char* missing :
       {"[N/A]", "N/A", "-", "", "[Not Supported]", "[Requested functionality has been deprecated]"}) {
    EXPECT_EQ(ParseSmiValue(missing).kind, ValueKind::kMissing) << missing;
  }
  for (const char* text : {"Enabled", "P0", "590.48.01", "0x0000", "Not Active"}) {
    EXPECT_EQ(ParseSmiValue(text).kind, ValueKind::kText) << text;
  }
}

TEST(SmiValuesTest, ConvertsToTheMetricsUnits) {
  EXPECT_EQ(ToMetricUnit(Metric::kFbUsedBytes, 2566, "MiB"), 2566.0 * 1024 * 1024);
  EXPECT_EQ(ToMetricUnit(Metric::kFbUsedBytes, 100, "MB"), 100.0 * 1024 * 1024);
  EXPECT_FALSE(ToMetricUnit(Metric::kFbUsedBytes, 100, "").has_value());
  EXPECT_EQ(ToMetricUnit(Metric::kPcieRxBytesPerS, 352, "KB/s"), 352000.0);
  EXPECT_EQ(ToMetricUnit(Metric::kPcieTxBytesPerS, 12, "MB/s"), 12e6);
  EXPECT_EQ(ToMetricUnit(Metric::kPowerW, 69.85, "W"), 69.85);
  EXPECT_EQ(ToMetricUnit(Metric::kPowerW, 1500, "mW"), 1.5);
  EXPECT_FALSE(ToMetricUnit(Metric::kGpuTempC, 40, "F").has_value());
  EXPECT_EQ(ToMetricUnit(Metric::kGpuUtilPct, 99, ""), 99.0);
}

TEST(SmiValuesTest, LocalClocksReadAsUtc) {
  // 2026-07-14 00:00:00 UTC = 1783987200 s (days since 1970: 20648).
  constexpr int64_t kDay = 1783987200LL * 1'000'000'000;
  EXPECT_EQ(ParseQueryTimestamp("2026/07/14 08:12:38.696"),
            kDay + (8 * 3600 + 12 * 60 + 38) * 1'000'000'000LL + 696'000'000);
  EXPECT_EQ(ParseQueryTimestamp("2026/07/14 08:12:38"), kDay + (8 * 3600 + 12 * 60 + 38) * 1'000'000'000LL);
  EXPECT_EQ(ParseReportTimestamp("Tue Jul 14 08:12:38 2026"), kDay + (8 * 3600 + 12 * 60 + 38) * 1'000'000'000LL);
  EXPECT_EQ(ParseReportTimestamp("Fri Jul  3 22:22:00 2026"),
            kDay - 11 * 86400 * 1'000'000'000LL + (22 * 3600 + 22 * 60) * 1'000'000'000LL);
  EXPECT_EQ(ParseMonitorDate("20260714"), kDay);
  EXPECT_EQ(ParseMonitorDate("2026/07/14"), kDay);
  EXPECT_EQ(ParseTimeOfDay("13:54:35"), (13 * 3600 + 54 * 60 + 35) * 1'000'000'000LL);
  for (const char* bad :
       {"2026/13/14 08:12:38", "2026/07/14 25:00:00", "2026/07/14", "yesterday", "2026/07/14 08:12:38.x"}) {
    EXPECT_FALSE(ParseQueryTimestamp(bad).has_value()) << bad;
  }
  EXPECT_FALSE(ParseReportTimestamp("Tue Foo 14 08:12:38 2026").has_value());
  EXPECT_FALSE(ParseMonitorDate("2026071").has_value());
  // Years int64 nanoseconds cannot hold are no time (found by smi_capture_fuzzer: 1013
  // overflowed the multiplication); the last whole years they can still are.
  EXPECT_FALSE(ParseReportTimestamp("Tue Jul 14 08:12:38 1013").has_value());
  EXPECT_FALSE(ParseQueryTimestamp("9999/07/14 08:12:38").has_value());
  EXPECT_FALSE(ParseMonitorDate("16770921").has_value());
  EXPECT_TRUE(ParseMonitorDate("16780101").has_value());
  EXPECT_TRUE(ParseMonitorDate("22611231").has_value());
}

TEST(CaptureSectionsTest, SplitsOnBannersAndReadsPhaseAndCommand) {
  std::string text =
      "################################################################################\n"
      "# nvidia_gpu_exporter GPU capture\n"
      "################################################################################\n"
      "collected_at:   2026-07-14T08:12:38Z\n"
      "\n"
      "################################################################################\n"
      "################################################################################\n"
      "# load :: dmon (per-device monitor)\n"
      "# $ nvidia-smi dmon -c 5 -d 2\n"
      "################################################################################\n"
      "# gpu    pwr\n";
  std::vector<Section> sections = SplitSections(text);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].title, "nvidia_gpu_exporter GPU capture");
  EXPECT_EQ(sections[0].first_line, 4u);
  EXPECT_EQ(sections[1].phase, "load");
  EXPECT_EQ(sections[1].title, "dmon (per-device monitor)");
  EXPECT_EQ(sections[1].command, "nvidia-smi dmon -c 5 -d 2");
  EXPECT_EQ(sections[1].body, "# gpu    pwr\n");
  EXPECT_EQ(sections[1].first_line, 11u);
  EXPECT_EQ(CommandOption(sections[1].command, "-d"), "2");
  EXPECT_FALSE(CommandOption(sections[1].command, "-l").has_value());
  // Without a banner the whole file is one section.
  ASSERT_EQ(SplitSections("# gpu pwr\n    0  69\n").size(), 1u);
}

TEST(SmiValuesTest, YesNoIsAFlagOnlyForFlagMetrics) {
  EXPECT_EQ(FlagValue(Metric::kRemappedRowsPending, "Yes"), 1.0);
  EXPECT_EQ(FlagValue(Metric::kRemappedRowsFailure, " No "), 0.0);
  EXPECT_EQ(FlagValue(Metric::kRetiredPagesPending, "yes"), 1.0);
  EXPECT_FALSE(FlagValue(Metric::kRemappedRowsPending, "[N/A]").has_value());
  EXPECT_FALSE(FlagValue(Metric::kRemappedRowsPending, "1").has_value());  // a number is read as a number
  EXPECT_FALSE(FlagValue(Metric::kGpuUtilPct, "Yes").has_value());
  EXPECT_FALSE(FlagValue(Metric::kRemappedRowsCorrectableCount, "No").has_value());
}

}  // namespace
}  // namespace kraken::nvidia_smi
