// The dcgm-exporter name catalog: current and 1.x names, units, blank sentinels.
#include "model/dcgm_metric_catalog.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace kraken::prometheus {
namespace {

TEST(DcgmMetricCatalogTest, CurrentAndOldNamesMapToTheSameMetric) {
  const DcgmMetricEntry* current = FindDcgmMetric("DCGM_FI_DEV_GPU_UTIL");
  const DcgmMetricEntry* old = FindDcgmMetric("dcgm_gpu_utilization");
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current, old);
  EXPECT_EQ(current->metric, Metric::kGpuUtilPct);
  EXPECT_EQ(FindDcgmMetric("dcgm_memory_clock")->field, "DCGM_FI_DEV_MEM_CLOCK");
  EXPECT_EQ(FindDcgmMetric("dcgm_fi_prof_pipe_tensor_active")->metric, Metric::kTensorActiveRatio);
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_DEV_FAN_SPEED"), nullptr);
  EXPECT_EQ(FindDcgmMetric(""), nullptr);
}

TEST(DcgmMetricCatalogTest, UnitsFollowTheCanonicalNames) {
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_DEV_FB_USED")->scale, 1048576.0);  // MiB -> bytes
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_DEV_FB_RESERVED")->metric, Metric::kFbReservedBytes);
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_DEV_POWER_USAGE")->scale, 1.0);
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")->metric, Metric::kEnergyMj);
  // PROF_PCIE_*_BYTES are rates (B/s) despite their names.
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_PROF_PCIE_TX_BYTES")->metric, Metric::kPcieTxBytesPerS);
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_PROF_NVLINK_RX_BYTES")->metric, Metric::kNvlinkRxBytesPerS);
  EXPECT_EQ(FindDcgmMetric("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL")->metric, Metric::kOther);
}

TEST(DcgmMetricCatalogTest, NamesAreUnique) {
  std::set<std::string> names;
  for (const DcgmMetricEntry& entry : DcgmMetricCatalog()) {
    EXPECT_TRUE(names.insert(std::string(entry.field)).second) << entry.field;
    if (!entry.legacy_name.empty()) {
      EXPECT_TRUE(names.insert(std::string(entry.legacy_name)).second) << entry.legacy_name;
    }
    EXPECT_GT(entry.scale, 0);
  }
}

TEST(DcgmMetricCatalogTest, BlankSentinels) {
  // DCGM_INT64_BLANK and the codes above it; the largest real int64 below it is a value.
  EXPECT_TRUE(IsDcgmBlank("9223372036854775792", 9223372036854775792.0));
  EXPECT_TRUE(IsDcgmBlank("9223372036854775794", 9223372036854775794.0));
  EXPECT_TRUE(IsDcgmBlank("99999999999999999999999", 1e23));
  EXPECT_FALSE(IsDcgmBlank("9223372036854775791", 9223372036854775791.0));
  // An int64 field far above 2^47 (an energy counter) is a real number.
  EXPECT_FALSE(IsDcgmBlank("200000000000000", 200000000000000.0));
  // DCGM_FP64_BLANK and above, printed as floats.
  EXPECT_TRUE(IsDcgmBlank("140737488355328.000000", 140737488355328.0));
  EXPECT_TRUE(IsDcgmBlank("140737488355330.000000", 140737488355330.0));
  EXPECT_FALSE(IsDcgmBlank("409.692000", 409.692));
  EXPECT_FALSE(IsDcgmBlank("-5", -5));
}

}  // namespace
}  // namespace kraken::prometheus
