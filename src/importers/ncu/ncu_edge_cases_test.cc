// Edge cases of the Nsight Compute importer on small inline inputs.
#include <gtest/gtest.h>

#include "importers/registry.h"
#include "importers/import_testing.h"

namespace kraken {
namespace {

using testing::ImportCounter;

constexpr char kHeader[] =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

// One details row of kernel `id` named "k(int, float)".
std::string Row(int id, const std::string& metric, const std::string& unit, const std::string& value) {
  std::string row = "\"";
  row.append(std::to_string(id));
  row.append("\",\"11\",\"app\",\"host\",\"k(int, float)\",\"1\",\"7\",\"(128, 1, 1)\",\"(64, 2, 1)\",\"0\",\"9.0\",");
  row.append("\"Command line profiler metrics\",\"").append(metric).append("\",\"").append(unit);
  row.append("\",\"").append(value).append("\"\n");
  return row;
}

Result<std::vector<Profile>> Import(const std::string& text, const std::string& format = "") {
  ImportOptions options;
  options.forced_format = format;
  return ImportBuffer(BuiltinImporters(), "test.csv", text, options);
}

Profile ImportOk(const std::string& text) {
  auto result = Import(text);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  EXPECT_EQ((*result)[0].metadata.format, "ncu-csv");
  return std::move((*result)[0]);
}

std::string ErrorOf(const std::string& text, const std::string& format = "") {
  auto result = Import(text, format);
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.status().message();
}

const KernelCounters& FirstCounters(const Profile& p) {
  static const KernelCounters kNone;
  if (p.kernels.empty() || p.kernels[0].counters_index < 0) return kNone;
  return p.kernel_counters[static_cast<size_t>(p.kernels[0].counters_index)];
}

TEST(NcuEdgeCasesTest, ProfLinesAndProgramOutputBeforeTheHeaderAreSkipped) {
  std::string text = "==PROF== Connected to process 11 (/usr/bin/app)\n"
                     "app says \"hello, world\n"
                     "==PROF== Profiling \"k\" - 0: 0%....50%....100% - 9 passes\n\n" +
                     std::string(kHeader) + Row(0, "gpu__time_duration.sum", "usecond", "1.50");
  Profile p = ImportOk(text);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.Name(p.kernels[0].name), "k(int, float)");
  EXPECT_EQ(p.kernels[0].duration_ns, 1500);
  EXPECT_EQ(p.kernels[0].grid, (Dim3{64, 2, 1}));
  EXPECT_EQ(p.kernels[0].block, (Dim3{128, 1, 1}));
  EXPECT_EQ(ImportCounter(p, "ncu_prologue_lines"), 3);
}

TEST(NcuEdgeCasesTest, ThousandsSeparatorsAutoScaledUnitsAndNotANumber) {
  std::string text = std::string(kHeader) + Row(0, "dram__bytes.sum", "byte", "1,937,900,416") +
                     Row(0, "lts__t_bytes.sum", "Kbyte", "1,024.50") + Row(0, "l1tex__t_bytes.sum", "Gbyte", "n/a") +
                     Row(0, "gpu__time_duration.sum", "msecond", "2.25") +
                     Row(0, "sm__cycles_elapsed.avg.per_second", "cycle/nsecond", "1.41") +
                     Row(0, "dram__cycles_elapsed.avg.per_second", "Mhz", "1,593") +
                     Row(0, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "PolicySpread");
  Profile p = ImportOk(text);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].duration_ns, 2250000);
  const KernelCounters& c = FirstCounters(p);
  EXPECT_EQ(c.dram_bytes, 1937900416.0);
  EXPECT_EQ(c.l2_bytes, 1024500.0);
  EXPECT_FALSE(c.l1_bytes.has_value());
  EXPECT_EQ(c.sm_clock_hz, 1.41e9);
  EXPECT_EQ(c.dram_clock_hz, 1593e6);
  EXPECT_FALSE(c.sm_throughput_pct.has_value());
  EXPECT_EQ(ImportCounter(p, "ncu_non_numeric_values"), 2);
}

TEST(NcuEdgeCasesTest, UnknownUnitIsCountedAndNotStored) {
  Profile p = ImportOk(std::string(kHeader) + Row(0, "dram__bytes.sum", "furlong", "12"));
  EXPECT_EQ(ImportCounter(p, "ncu_unknown_units"), 1);
  EXPECT_EQ(p.kernels[0].counters_index, -1);
}

TEST(NcuEdgeCasesTest, KernelsComeInIdOrderAndThroughputNeedsAPercentUnit) {
  std::string text = std::string(kHeader) + Row(1, "gpu__time_duration.sum", "ns", "20") +
                     Row(0, "gpu__time_duration.sum", "ns", "10") + Row(0, "Memory Throughput", "Gbyte/s", "345.14");
  Profile p = ImportOk(text);
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].duration_ns, 10);
  EXPECT_EQ(p.kernels[1].duration_ns, 20);
  EXPECT_EQ(p.kernels[0].counters_index, -1);  // 345.14 Gbyte/s is no percentage
}

TEST(NcuEdgeCasesTest, RuleRowsAndShortRowsAreCounted) {
  std::string header =
      "ID,Process ID,Process Name,Host Name,Kernel Name,Context,Stream,Block Size,Grid Size,Device,CC,Section Name,"
      "Metric Name,Metric Unit,Metric Value,Rule Name,Rule Type,Rule Description,Estimated Speedup Type,"
      "Estimated Speedup\n";
  std::string text = header + "0,1,app,h,k,1,7,\"(1, 1, 1)\",\"(1, 1, 1)\",0,8.6,SOL,Duration,nsecond,\"1,234\",\n" +
                     "0,1,app,h,k,1,7,\"(1, 1, 1)\",\"(1, 1, 1)\",0,8.6,SpeedOfLight,,,,SOLBottleneck,OPT,text,,\n" +
                     "0,1,app,h,k,1,7,\"(1, 1, 1)\",\"(1, 1, 1)\",0,8.6,SOL,DRAM Throughput\n";
  Profile p = ImportOk(text);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].duration_ns, 1234);
  EXPECT_EQ(ImportCounter(p, "ncu_rule_rows"), 1);
  EXPECT_EQ(ImportCounter(p, "ncu_short_rows"), 1);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].compute_major, 8);
  EXPECT_EQ(p.devices[0].compute_minor, 6);
}

TEST(NcuEdgeCasesTest, TruncatedFileKeepsItsCompleteRows) {
  std::string text = std::string(kHeader) + Row(0, "gpu__time_duration.sum", "ns", "10") +
                     "\"0\",\"11\",\"app\",\"host\",\"k(int, float)\",\"1\"";
  Profile p = ImportOk(text);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].duration_ns, 10);
  EXPECT_EQ(ImportCounter(p, "ncu_short_rows"), 1);
}

TEST(NcuEdgeCasesTest, FileCutInsideAQuoteIsAnError) {
  std::string text = std::string(kHeader) + Row(0, "gpu__time_duration.sum", "ns", "10") + "\"0\",\"11\",\"ap";
  EXPECT_EQ(ErrorOf(text), "test.csv: line 3: unterminated quoted field (is the file cut short?)");
}

TEST(NcuEdgeCasesTest, HeaderWithoutRowsIsAnError) {
  EXPECT_EQ(ErrorOf(kHeader), "test.csv: line 1: ncu CSV has a header but no kernel row");
}

TEST(NcuEdgeCasesTest, HeaderWithoutKernelNameIsAnError) {
  EXPECT_EQ(ErrorOf("==PROF== x\n\"ID\",\"Metric Name\",\"Metric Value\"\n\"0\",\"a\",\"1\"\n"),
            "test.csv: line 2: ncu CSV header has no \"Kernel Name\" column");
}

TEST(NcuEdgeCasesTest, OtherCsvForcedAsNcuIsAnError) {
  EXPECT_EQ(ErrorOf("Name,Profile,Memory_footprint,SM_usage,Duration\nk,0,0,1,6144\n", "ncu-csv"),
            "test.csv: line 1: no Nsight Compute table: no line starts with an \"ID\" column (ncu --csv output)");
}

TEST(NcuEdgeCasesTest, BinaryJunkIsNotSniffedAndFailsWhenForced) {
  std::string junk("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe\x01\x02", 20);
  std::string sniffed = ErrorOf(junk);
  EXPECT_NE(sniffed.find("not a format kraken reads"), std::string::npos) << sniffed;
  std::string forced = ErrorOf(junk, "ncu-csv");
  EXPECT_NE(forced.find("no Nsight Compute table"), std::string::npos) << forced;
}

constexpr char kRawHeader[] =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"device__attribute_display_name\",\"dram__bytes.sum\",\"gpu__time_duration.sum\"\n";

TEST(NcuEdgeCasesTest, RawPageUsesItsUnitsRow) {
  std::string text = std::string(kRawHeader) + "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"usecond\"\r\n" +
                     "\"3\",\"1\",\"a\",\"h\",\"k\",\"1\",\"13\",\"NVIDIA H100\",\"1.50\",\"2.5\"\r\n" +
                     "\"4\",\"1\",\"a\",\"h\",\"k\",\"1\",\"13\",\"NVIDIA H100\",\"2\"\r\n";
  Profile p = ImportOk(text);
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].duration_ns, 2500);
  EXPECT_EQ(p.kernels[0].stream, 13);
  EXPECT_EQ(p.kernel_counters[0].dram_bytes, 1.5e6);
  EXPECT_EQ(p.kernels[1].duration_ns, 0);
  EXPECT_EQ(ImportCounter(p, "ncu_short_rows"), 1);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].index, -1);  // no Device column, no device index attribute
  EXPECT_EQ(p.devices[0].name, "NVIDIA H100");
}

TEST(NcuEdgeCasesTest, RawPageWithoutUnitsRowIsAnError) {
  std::string text = std::string(kRawHeader) + "\"3\",\"1\",\"a\",\"h\",\"k\",\"1\",\"13\",\"NVIDIA H100\",\"1\",\"2\"\n";
  EXPECT_EQ(ErrorOf(text), "test.csv: line 2: ncu raw CSV has no units row under its header (its ID cell is not empty)");
}

TEST(NcuEdgeCasesTest, RawPageWithoutKernelRowsIsAnError) {
  EXPECT_EQ(ErrorOf(kRawHeader), "test.csv: line 1: ncu raw CSV ends after its header: no kernel row");
  std::string units_only = std::string(kRawHeader) + ",,,,,,,,Mbyte,usecond\n";
  EXPECT_EQ(ErrorOf(units_only), "test.csv: line 2: ncu CSV has a header but no kernel row");
}

}  // namespace
}  // namespace kraken
