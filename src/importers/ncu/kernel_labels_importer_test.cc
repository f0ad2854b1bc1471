#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

TEST(KernelLabelsImporterTest, LlmPerfOptClassificationSummary) {
  auto result = ImportFile(BuiltinImporters(),
                           testing::DataPath("ncu/rtx5090-cc12.0_llm-perf-opt_classification_summary.csv"));
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->size(), 1u);
  const Profile& p = (*result)[0];
  EXPECT_EQ(p.metadata.format, "kernel-labels");
  EXPECT_FALSE(p.metadata.kernel_timestamps_valid);
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_EQ(p.metadata.attributes.at("labels_kernel_column"), "kernel_id");
  EXPECT_EQ(p.metadata.attributes.at("labels_label_column"), "classification");
  ASSERT_EQ(p.kernel_labels.size(), 20u);
  EXPECT_EQ(p.kernel_labels[0].kernel, "kernel_0001_67bdb7e29d1bb4e0ca0aec954ef18af3");
  EXPECT_EQ(p.kernel_labels[0].label, "memory_bound");
  EXPECT_EQ(p.kernel_labels[15].kernel, "kernel_0016_d5dc19ab8d6c32669179c164a1a4c9a5");
  EXPECT_EQ(p.kernel_labels[15].label, "compute_bound");
  EXPECT_EQ(p.kernel_labels[8].label, "balanced");  // kernel_0009, the FMHA
  for (const KernelLabel& label : p.kernel_labels) EXPECT_EQ(label.source, "labels");
  int compute = 0, memory = 0, balanced = 0;
  for (const KernelLabel& label : p.kernel_labels) {
    compute += label.label == "compute_bound";
    memory += label.label == "memory_bound";
    balanced += label.label == "balanced";
  }
  EXPECT_EQ(compute, 4);
  EXPECT_EQ(memory, 9);
  EXPECT_EQ(balanced, 7);
}

TEST(KernelLabelsImporterTest, MalformedRowsAreCountedAndEmptyFilesRejected) {
  // A row of one field makes the sniffer doubt the file, so the format is named.
  ImportOptions forced;
  forced.forced_format = "kernel-labels";
  auto result =
      ImportBuffer(BuiltinImporters(), "l.csv", "kernel,label\nk1,memory\n\nk2\n\"k3, x\",compute\n", forced);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Profile& p = (*result)[0];
  ASSERT_EQ(p.kernel_labels.size(), 2u);
  EXPECT_EQ(p.kernel_labels[1].kernel, "k3, x");
  EXPECT_EQ(p.import_counters.at("labels_malformed_rows"), 1);

  auto empty = ImportBuffer(BuiltinImporters(), "l.csv", "kernel,label\n", forced);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "l.csv: line 1: label CSV has a header but no label row");
}

}  // namespace
}  // namespace kraken
