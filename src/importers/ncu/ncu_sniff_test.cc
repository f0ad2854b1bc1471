// Sniffing: the ncu and label importers claim their files and nothing else, and the
// other importers leave them alone.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

std::string Head(const std::string& path) { return testing::ReadFileOrDie(path).substr(0, kSniffBytes); }

const Importer& ByName(std::string_view name) {
  const Importer* importer = BuiltinImporters().FindByName(name);
  EXPECT_NE(importer, nullptr) << name;
  return *importer;
}

TEST(NcuSniffTest, RegistryPicksTheRightImporterForEveryNcuFolderFile) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::DataDir() + "/ncu")) {
    std::string path = entry.path().string();
    if (!path.ends_with(".csv")) continue;
    std::string head = Head(path);
    const Importer* chosen = BuiltinImporters().Sniff(head);
    ASSERT_NE(chosen, nullptr) << path;
    bool labels = path.ends_with("classification_summary.csv");
    EXPECT_EQ(chosen->descriptor().name, labels ? "kernel-labels" : "ncu-csv") << path;
    EXPECT_EQ(ByName("kineto").Sniff(head), SniffResult::kNo) << path;
    EXPECT_EQ(ByName("ncu-csv").Sniff(head), labels ? SniffResult::kNo : SniffResult::kYes) << path;
    EXPECT_EQ(ByName("kernel-labels").Sniff(head), labels ? SniffResult::kYes : SniffResult::kNo) << path;
    ++files;
  }
  EXPECT_EQ(files, 10);
}

TEST(NcuSniffTest, KinetoTraceIsNotClaimed) {
  std::string head = Head(testing::DataPath("kineto/hta/call_stack/backward_thread.json"));
  EXPECT_EQ(ByName("ncu-csv").Sniff(head), SniffResult::kNo);
  EXPECT_EQ(ByName("kernel-labels").Sniff(head), SniffResult::kNo);
  EXPECT_EQ(BuiltinImporters().Sniff(head)->descriptor().name, "kineto");
}

TEST(NcuSniffTest, OrionCsvIsNotClaimed) {
  std::string head = Head(testing::DataPath("orion/bert_2_fwd.csv"));
  ASSERT_EQ(head.substr(0, 48), "Name,Profile,Memory_footprint,SM_usage,Duration\n");
  EXPECT_EQ(ByName("ncu-csv").Sniff(head), SniffResult::kNo);
  EXPECT_EQ(ByName("kernel-labels").Sniff(head), SniffResult::kNo);
}

TEST(NcuSniffTest, NvidiaSmiCsvIsNotClaimed) {
  std::string head =
      "timestamp, name, pci.bus_id, utilization.gpu [%], memory.used [MiB]\n"
      "2026/07/01 10:00:00.000, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 0 %, 1 MiB\n";
  EXPECT_EQ(ByName("ncu-csv").Sniff(head), SniffResult::kNo);
  EXPECT_EQ(ByName("kernel-labels").Sniff(head), SniffResult::kNo);
}

TEST(NcuSniffTest, LabelSnifferWantsExactlyTwoColumns) {
  const Importer& labels = ByName("kernel-labels");
  EXPECT_EQ(labels.Sniff("kernel,label\nk1,memory\n"), SniffResult::kYes);
  EXPECT_EQ(labels.Sniff("\"Kernel Name\",\"Bound\"\n\"void f(int, int)\",compute\n"), SniffResult::kYes);
  EXPECT_EQ(labels.Sniff("kernel,label,extra\nk1,memory,x\n"), SniffResult::kNo);
  EXPECT_EQ(labels.Sniff("kernel,label\nk1,memory,x\n"), SniffResult::kNo);
  EXPECT_EQ(labels.Sniff("timestamp,value\n1,2\n"), SniffResult::kNo);
  EXPECT_EQ(labels.Sniff("kernel_id,classification"), SniffResult::kNo);  // no complete line
}

}  // namespace
}  // namespace kraken
