// Golden tests of the Orion importer on the 19 real kernel lists in shared/data/orion.
// Every expected number below was read from the files with Python's csv module.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

struct ExpectedRow {
  size_t index;
  const char* name;
  const char* label;
  int32_t sm_usage;
  TimeNs duration_ns;
};

struct ExpectedFile {
  const char* file;
  size_t rows;
  size_t compute_labels;  // Profile 1
  size_t memory_labels;   // Profile 0
  size_t unknown_labels;  // Profile -1
  TimeNs total_duration_ns;
  ExpectedRow first, middle, last;
};

// The seven *_fb0 files have the same values (-1, 1, 1, 7) in every row; they are kept
// here exactly as written.
const ExpectedFile kFiles[] = {
    {"bert_2_fwd.csv", 572, 193, 202, 177, 48625298,
     {0, "void at::native::unrolled_elementwise_kernel", "-1", 1, 6144},
     {286, "void at::native::elementwise_kernel", "-1", 192, 9632},
     {571, "volta_sgemm_32x128_tn", "1", 20, 12864}},
    {"bert_8_fb0.csv", 4777, 0, 0, 4777, 33439,
     {0, "void at::native::unrolled_elementwise_kernel", "-1", 1, 7},
     {2388, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7},
     {4776, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7}},
    {"bert_8_fb1.csv", 4777, 290, 3216, 1271, 190766381,
     {0, "void at::native::vectorized_elementwise_kernel", "0", 2862, 106943},
     {2388, "void at::native::elementwise_kernel", "0", 144, 7072},
     {4776, "void at::native::vectorized_elementwise_kernel", "-1", 1, 3072}},
    {"mobilenetv2_32_fb0.csv", 574, 0, 0, 574, 4018,
     {0, "Conv", "-1", 1, 7},
     {287, "Conv", "-1", 1, 7},
     {573, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7}},
    {"mobilenetv2_32_fb1.csv", 890, 89, 588, 213, 40476339,
     {0, "void at::native::vectorized_elementwise_kernel", "-1", 1, 3296},
     {445, "BatchNorm", "0", 54, 7936},
     {889, "void at::native::vectorized_elementwise_kernel", "0", 1, 4064}},
    {"mobilenetv2_4_fwd.csv", 152, 34, 82, 36, 2262977,
     {0, "Conv", "1", 49, 26688},
     {76, "void at::native::vectorized_elementwise_kernel", "0", 7, 3680},
     {151, "void gemmSN_TN_kernel", "0", 14, 18304}},
    {"mobilenetv2_64_fb0.csv", 574, 0, 0, 574, 4018,
     {0, "Conv", "-1", 1, 7},
     {287, "Conv", "-1", 1, 7},
     {573, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7}},
    {"mobilenetv2_64_fb1.csv", 890, 85, 592, 213, 74896890,
     {0, "void at::native::vectorized_elementwise_kernel", "-1", 1, 3232},
     {445, "BatchNorm", "0", 54, 10976},
     {889, "void at::native::vectorized_elementwise_kernel", "0", 1, 3680}},
    {"mobilenetv2_96_fb0.csv", 574, 0, 0, 574, 4018,
     {0, "Conv", "-1", 1, 7},
     {287, "Conv", "-1", 1, 7},
     {573, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7}},
    {"mobilenetv2_96_fb1.csv", 890, 84, 593, 213, 109567537,
     {0, "void at::native::vectorized_elementwise_kernel", "-1", 1, 3680},
     {445, "BatchNorm", "0", 54, 16928},
     {889, "void at::native::vectorized_elementwise_kernel", "0", 1, 3712}},
    {"resnet101_32_fb0.csv", 1219, 0, 0, 1219, 8533,
     {0, "Conv", "-1", 1, 7},
     {609, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7},
     {1218, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7}},
    {"resnet101_32_fb1.csv", 1847, 311, 1113, 423, 155933460,
     {0, "void at::native::vectorized_elementwise_kernel", "-1", 2, 3103},
     {923, "void at::native::vectorized_elementwise_kernel", "0", 1, 5152},
     {1846, "void at::native::vectorized_elementwise_kernel", "0", 1, 3744}},
    {"resnet101_4_fwd.csv", 345, 105, 148, 92, 11567105,
     {0, "Conv", "1", 98, 101183},
     {172, "void at::native::vectorized_elementwise_kernel", "-1", 25, 4352},
     {344, "volta_sgemm_128x32_tn", "1", 24, 33663}},
    {"resnet50_32_fb0.csv", 624, 0, 0, 624, 4368,
     {0, "Conv", "-1", 1, 7},
     {312, "Conv", "-1", 1, 7},
     {623, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7}},
    {"resnet50_32_fb1.csv", 946, 158, 569, 219, 95277683,
     {0, "void at::native::vectorized_elementwise_kernel", "-1", 2, 3232},
     {473, "void at::native::vectorized_elementwise_kernel", "0", 784, 95520},
     {945, "void at::native::vectorized_elementwise_kernel", "0", 1, 3712}},
    {"resnet50_4_fwd.csv", 175, 54, 80, 41, 6498424,
     {0, "Conv", "1", 98, 100480},
     {87, "BatchNorm", "0", 128, 12256},
     {174, "volta_sgemm_128x32_tn", "1", 24, 32544}},
    {"transformer_xl_4_fwd.csv", 459, 129, 181, 149, 16671218,
     {0, "void at::native::(anonymous namespace)::indexSelectLargeIndex", "-1", 40, 10112},
     {229, "void at::native::vectorized_elementwise_kernel", "0", 192, 16736},
     {458, "void at::native::(anonymous namespace)::CatArrayBatchedCopy", "0", 640, 69407}},
    {"transformer_xl_8_fb0.csv", 4396, 0, 0, 4396, 30772,
     {0, "void at::native::(anonymous namespace)::indexSelectLargeIndex", "-1", 1, 7},
     {2198, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7},
     {4395, "void at::native::vectorized_elementwise_kernel", "-1", 1, 7}},
    {"transformer_xl_8_fb1.csv", 4354, 372, 2689, 1293, 125368905,
     {0, "void at::native::(anonymous namespace)::indexSelectLargeIndex", "-1", 40, 13760},
     {2177, "void at::native::vectorized_elementwise_kernel", "0", 1, 2944},
     {4353, "void at::native::vectorized_elementwise_kernel", "0", 33, 4128}},
};

size_t CountLabel(const Profile& p, const std::string& label) {
  return static_cast<size_t>(std::count_if(p.kernel_labels.begin(), p.kernel_labels.end(),
                                           [&](const KernelLabel& l) { return l.label == label; }));
}

void ExpectRow(const Profile& p, const ExpectedRow& row, const std::string& file) {
  SCOPED_TRACE(file + " row " + std::to_string(row.index));
  ASSERT_LT(row.index, p.kernels.size());
  const Kernel& k = p.kernels[row.index];
  EXPECT_EQ(p.Name(k.name), row.name);
  EXPECT_EQ(k.start_ns, 0);
  EXPECT_EQ(k.duration_ns, row.duration_ns);
  EXPECT_EQ(k.grid[0], row.sm_usage);
  EXPECT_EQ(k.grid[1], 1);
  EXPECT_EQ(k.grid[2], 1);
  const KernelLabel& label = p.kernel_labels[row.index];
  EXPECT_EQ(label.kernel, row.name);
  EXPECT_EQ(label.label, row.label);
  EXPECT_EQ(label.source, "orion");
}

TEST(OrionImporterTest, EveryFileImportsWithExactRowsAndLabels) {
  size_t files = 0;
  for (const ExpectedFile& expected : kFiles) {
    SCOPED_TRACE(expected.file);
    auto result = ImportFile(BuiltinImporters(), testing::DataPath(std::string("orion/") + expected.file));
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_EQ(result->size(), 1u);
    const Profile& p = (*result)[0];
    EXPECT_EQ(p.metadata.format, "orion-csv");
    EXPECT_FALSE(p.metadata.kernel_timestamps_valid);
    EXPECT_TRUE(p.devices.empty());
    EXPECT_EQ(p.kernels.size(), expected.rows);
    ASSERT_EQ(p.kernel_labels.size(), expected.rows);
    EXPECT_EQ(CountLabel(p, "1"), expected.compute_labels);
    EXPECT_EQ(CountLabel(p, "0"), expected.memory_labels);
    EXPECT_EQ(CountLabel(p, "-1"), expected.unknown_labels);
    TimeNs total = std::accumulate(p.kernels.begin(), p.kernels.end(), TimeNs{0},
                                   [](TimeNs sum, const Kernel& k) { return sum + k.duration_ns; });
    EXPECT_EQ(total, expected.total_duration_ns);
    EXPECT_EQ(p.import_counters.count("orion_bad_rows"), 0u);
    EXPECT_EQ(p.import_counters.at("orion_rows"), static_cast<int64_t>(expected.rows));
    ExpectRow(p, expected.first, expected.file);
    ExpectRow(p, expected.middle, expected.file);
    ExpectRow(p, expected.last, expected.file);
    ++files;
  }
  // The table covers every file of the folder.
  size_t on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::DataDir() + "/orion"))
    if (entry.path().extension() == ".csv") ++on_disk;
  EXPECT_EQ(on_disk, files);
  EXPECT_EQ(files, 19u);
}

Result<std::vector<Profile>> ImportText(const std::string& text) {
  return ImportBuffer(BuiltinImporters(), "inline.csv", text);
}

TEST(OrionImporterTest, SniffsOnlyTheExactHeader) {
  const Importer* orion = BuiltinImporters().FindByName("orion-csv");
  ASSERT_NE(orion, nullptr);
  EXPECT_EQ(orion->Sniff("Name,Profile,Memory_footprint,SM_usage,Duration\nConv,1,0,98,101183\n"),
            SniffResult::kYes);
  EXPECT_EQ(orion->Sniff("Name,Profile,Memory_footprint,SM_usage,Duration\r\n"), SniffResult::kYes);
  EXPECT_EQ(orion->Sniff("Name,Profile,Memory_footprint,SM_usage"), SniffResult::kNo);
  EXPECT_EQ(orion->Sniff("Name,Profile,Memory_footprint,SM_usage,Duration,Extra\n"), SniffResult::kNo);
  EXPECT_EQ(orion->Sniff("\"ID\",\"Process ID\",\"Kernel Name\"\n"), SniffResult::kNo);
  EXPECT_EQ(orion->Sniff("{\"traceEvents\": []}"), SniffResult::kNo);
}

TEST(OrionImporterTest, BadRowsAreCountedAndSkipped) {
  auto result = ImportText(
      "Name,Profile,Memory_footprint,SM_usage,Duration\n"
      "Conv,1,0,98,101183\n"
      "BatchNorm,zero,0,64,40096\n"   // label not a number
      "Pool,0,0,-3,100\n"             // negative block count
      "Copy,0,0,4\n"                  // a column missing
      "\n"                            // blank lines are skipped, not counted
      "\"void f<int, 2>\",0,0,8,2048.4\n");
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Profile& p = (*result)[0];
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.import_counters.at("orion_bad_rows"), 3);
  EXPECT_EQ(p.Name(p.kernels[1].name), "void f<int, 2>");
  EXPECT_EQ(p.kernels[1].duration_ns, 2048);
  EXPECT_EQ(p.kernels[1].grid[0], 8);
}

TEST(OrionImporterTest, UnusableFilesAreRejectedWithTheLine) {
  const std::string header = "Name,Profile,Memory_footprint,SM_usage,Duration\n";
  auto header_only = ImportText(header);
  ASSERT_FALSE(header_only.ok());
  EXPECT_NE(header_only.status().message().find("line 1: Orion header but no rows"), std::string::npos)
      << header_only.status().message();

  auto truncated = ImportText(header + "Conv,1,0,98,101183\nBatchNorm,0,0,6");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("line 3: file ends inside a row"), std::string::npos)
      << truncated.status().message();

  auto open_quote = ImportText(header + "Conv,1,0,98,101183\n\"void f<int,1,0,1,2\n");
  ASSERT_FALSE(open_quote.ok());
  EXPECT_NE(open_quote.status().message().find("line 3: quoted field never closed"), std::string::npos)
      << open_quote.status().message();

  auto garbage = ImportText(header + "a;b;c\nx\ny,z\n");
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("line 2: no row of the file is a valid Orion row"), std::string::npos)
      << garbage.status().message();

  // Forced onto a file that is not Orion's, the importer says so.
  ImportOptions forced;
  forced.forced_format = "orion-csv";
  auto wrong = ImportBuffer(BuiltinImporters(), "x.csv", "ID,Name\n1,a\n", forced);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("line 1: not the Orion header"), std::string::npos)
      << wrong.status().message();
}

}  // namespace
}  // namespace kraken
