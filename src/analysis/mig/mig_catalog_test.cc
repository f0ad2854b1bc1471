// The MIG tables against the MIG User Guide's facts and real nvidia-smi captures.
#include "model/mig_catalog.h"

#include <gtest/gtest.h>

#include "analysis/mig/mig_placement.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

Profile ImportOne(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return {};
  return std::move((*result)[0]);
}

TEST(MigCatalogTest, GuideFactsHoldForEveryGeometry) {
  ASSERT_EQ(MigGeometries().size(), 4u);
  for (const MigGeometry& g : MigGeometries()) {
    SCOPED_TRACE(g.device_id);
    ASSERT_EQ(g.profiles.size(), 6u);
    // MIG User Guide tables 6-8 and -lgipp: slices, instance counts, placements.
    const int compute[] = {1, 1, 2, 3, 4, 7}, memory[] = {1, 2, 2, 4, 4, 8}, instances[] = {7, 4, 3, 2, 1, 1};
    const int ids[] = {19, 15, 14, 9, 5, 0};
    const std::vector<int> starts[] = {{0, 1, 2, 3, 4, 5, 6}, {0, 2, 4, 6}, {0, 2, 4}, {0, 4}, {0}, {0}};
    for (size_t i = 0; i < 6; ++i) {
      const MigProfileSpec& p = g.profiles[i];
      EXPECT_EQ(p.compute_slices, compute[i]) << p.name;
      EXPECT_EQ(p.memory_slices, memory[i]) << p.name;
      EXPECT_EQ(p.max_instances, instances[i]) << p.name;
      EXPECT_EQ(p.profile_id, ids[i]) << p.name;
      EXPECT_EQ(p.starts, starts[i]) << p.name;
      // The name's "Ng" is the compute slice count.
      EXPECT_EQ(p.name.substr(0, 2), std::to_string(p.compute_slices) + "g") << p.name;
      if (i > 0) {
        EXPECT_GE(p.sm_count, g.profiles[i - 1].sm_count) << p.name;
        EXPECT_GE(p.memory_mib, g.profiles[i - 1].memory_mib) << p.name;
      }
    }
    // The whole-GPU profile fits in the device's memory and SMs.
    const DeviceSpec* spec = FindDeviceSpec(g.device_id);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(g.full_gpu_sm_count, spec->sm_count);
    EXPECT_LE(g.profiles.back().memory_mib * kMiB, spec->memory_bytes);
    EXPECT_LE(g.profiles.back().sm_count, spec->sm_count);
    // "Instances available" is the most non-overlapping placements of the profile alone.
    for (size_t i = 0; i < 6; ++i) {
      std::vector<int> many(static_cast<size_t>(g.profiles[i].max_instances), static_cast<int>(i));
      EXPECT_TRUE(mig::PlaceProfiles(g, many).has_value()) << g.profiles[i].name;
      many.push_back(static_cast<int>(i));
      EXPECT_FALSE(mig::PlaceProfiles(g, many).has_value()) << g.profiles[i].name;
    }
  }
}

TEST(MigCatalogTest, LookupsByDeviceAndProfileName) {
  EXPECT_EQ(FindMigGeometry("h100-sxm")->name, "NVIDIA H100 SXM5 80GB");
  EXPECT_EQ(FindMigGeometry("A100-80GB-PCIE")->device_id, "a100-80gb-sxm");
  EXPECT_EQ(FindMigGeometry("a100-40gb-pcie")->device_id, "a100-40gb-sxm");
  EXPECT_EQ(FindMigGeometry("v100-sxm2"), nullptr);
  EXPECT_EQ(FindMigGeometry("h100-pcie"), nullptr);  // 114 SMs: not covered
  const MigGeometry& h200 = *FindMigGeometry("h200-sxm");
  EXPECT_EQ(FindMigProfile(h200, "2c.3g.71gb")->name, "3g.71gb");
  EXPECT_EQ(FindMigProfile(h200, "MIG 1g.18gb")->sm_count, 16);
  EXPECT_EQ(FindMigProfile(h200, "3g.40gb"), nullptr);
  EXPECT_EQ(FindMigProfile(*FindMigGeometry("a100-40gb-sxm"), "1g.5gb")->memory_mib, 4864);
}

struct Expected {
  std::string profile;
  int32_t sms;
  int64_t mib;
};

// Every MIG instance the capture lists: its GPU instance's profile is in the table with
// exactly the memory the driver reported; full-size compute instances have the table's SMs.
void ExpectCaptureAgrees(const Profile& p, const MigGeometry& g, const std::vector<Expected>& expected) {
  ASSERT_EQ(p.devices.size(), 1u);
  const auto& instances = p.devices[0].mig_instances;
  ASSERT_EQ(instances.size(), expected.size());
  for (size_t i = 0; i < instances.size(); ++i) {
    const MigInstance& m = instances[i];
    SCOPED_TRACE(m.profile);
    EXPECT_EQ(m.profile, expected[i].profile);
    EXPECT_EQ(m.sm_count, expected[i].sms);
    EXPECT_EQ(m.memory_bytes, expected[i].mib * kMiB);
    const MigProfileSpec* spec = FindMigProfile(g, m.profile);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(spec->memory_mib * kMiB, m.memory_bytes);
    bool compute_instance = m.profile.find("c.") != std::string::npos;
    if (compute_instance) {
      EXPECT_LT(m.sm_count, spec->sm_count);
    } else {
      EXPECT_EQ(spec->sm_count, m.sm_count);
    }
  }
}

TEST(MigCatalogTest, H100TableAgreesWithTheH100MigCapture) {
  Profile p = ImportOne("nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt");
  const MigGeometry& g = *FindMigGeometry("h100-sxm");
  ExpectCaptureAgrees(p, g, {{"3g.40gb", 60, 40448}, {"2g.20gb", 32, 20096}, {"1g.10gb", 16, 9984}, {"1g.10gb", 16, 9984}});
  // GI ids 2, 3, 9, 10 sit at valid places: the layout 3g@0, 2g@4, 1g@6 plus one more 1g
  // does not fit (8 slices), so the capture holds 3g + 2g + 1g + 1g = 3+2+1+1 compute slices.
  auto layout = mig::PlaceProfiles(g, {3, 2, 0, 0});
  ASSERT_TRUE(layout.has_value());
  EXPECT_TRUE(mig::IsValidLayout(g, *layout));
}

TEST(MigCatalogTest, H200TableAgreesWithTheH200MigCapture) {
  Profile p = ImportOne("nvidia-smi/capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt");
  const MigGeometry& g = *FindMigGeometry("h200-sxm");
  // GPU instance 2 (3g.71gb) is split into a 1-slice and a 2-slice compute instance.
  ExpectCaptureAgrees(p, g, {{"1c.3g.71gb", 16, 71424}, {"2c.3g.71gb", 32, 71424}, {"2g.35gb", 32, 33280},
                             {"1g.18gb", 16, 16384}, {"1g.18gb", 16, 16384}});
  // Its compute instances add up to no more than the GPU instance's 60 SMs.
  EXPECT_LE(16 + 32, FindMigProfile(g, "3g.71gb")->sm_count);
  EXPECT_TRUE(mig::PlaceProfiles(g, {3, 2, 0, 0}).has_value());
}

TEST(MigCatalogTest, DcgmA100MigInstanceIsAKnownProfile) {
  Profile p = ImportOne("dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom");
  ASSERT_EQ(p.devices.size(), 1u);
  ASSERT_EQ(p.devices[0].mig_instances.size(), 1u);
  const MigProfileSpec* spec = FindMigProfile(*FindMigGeometry("a100-40gb-sxm"), p.devices[0].mig_instances[0].profile);
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->name, "1g.5gb");
  EXPECT_EQ(spec->sm_count, 14);
}

}  // namespace
}  // namespace kraken
