// The collector on the replay library, loaded through the real dlopen path, against the
// fixtures derived from the real nvidia-smi captures (tests/fixtures/nvml). Expected values
// are the captures' own numbers: the same ones the nvidia-smi importer's golden tests read.
#include <gtest/gtest.h>

#include <algorithm>

#include "collectors/nvml/nvml_test_support.h"
#include "importers/registry.h"

namespace kraken::nvml {
namespace {

using testing::kMiB;

using testing::CountMetric;
using testing::FixturePath;
using testing::OpenReplay;
using testing::Pick;
using testing::ReplaySeries;
using testing::Series;
using testing::ValuesOf;

constexpr char kMaskedUuid[] = "GPU-00000000-0000-0000-0000-000000000000";

DeviceInfo ImportedDevice(const std::string& capture) {
  auto profiles = ImportFile(BuiltinImporters(), kraken::testing::DataPath("nvidia-smi/" + capture));
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (!profiles.ok() || profiles->empty() || (*profiles)[0].devices.empty()) return DeviceInfo();
  return (*profiles)[0].devices[0];
}

// What NVML reports about a GPU must equal what nvidia-smi printed for it.
void ExpectSameDevice(const DeviceInfo& nvml, const DeviceInfo& smi) {
  EXPECT_EQ(nvml.name, smi.name);
  EXPECT_EQ(nvml.uuid, smi.uuid);
  EXPECT_EQ(nvml.pci_bus_id, smi.pci_bus_id);
  EXPECT_EQ(nvml.architecture, smi.architecture);
  EXPECT_EQ(nvml.memory_bytes, smi.memory_bytes);
  EXPECT_EQ(nvml.compute_major, smi.compute_major);
  EXPECT_EQ(nvml.compute_minor, smi.compute_minor);
  EXPECT_EQ(nvml.max_sm_clock_mhz, smi.max_sm_clock_mhz);
  EXPECT_EQ(nvml.max_mem_clock_mhz, smi.max_mem_clock_mhz);
  EXPECT_EQ(nvml.power_limit_w, smi.power_limit_w);
  EXPECT_EQ(nvml.pcie_link_width, smi.pcie_link_width);
  EXPECT_EQ(nvml.driver_version, smi.driver_version);
  EXPECT_EQ(nvml.cuda_version, smi.cuda_version);
  EXPECT_EQ(nvml.minor_number, smi.minor_number);
  EXPECT_EQ(nvml.mig_enabled, smi.mig_enabled);
  EXPECT_EQ(nvml.mig_enabled_pending, smi.mig_enabled_pending);
  ASSERT_EQ(nvml.mig_instances.size(), smi.mig_instances.size());
  for (size_t i = 0; i < smi.mig_instances.size(); ++i) {
    EXPECT_EQ(nvml.mig_instances[i].gpu_instance_id, smi.mig_instances[i].gpu_instance_id) << i;
    EXPECT_EQ(nvml.mig_instances[i].compute_instance_id, smi.mig_instances[i].compute_instance_id) << i;
    EXPECT_EQ(nvml.mig_instances[i].profile, smi.mig_instances[i].profile) << i;
    EXPECT_EQ(nvml.mig_instances[i].memory_bytes, smi.mig_instances[i].memory_bytes) << i;
    EXPECT_EQ(nvml.mig_instances[i].sm_count, smi.mig_instances[i].sm_count) << i;
  }
}

TEST(NvmlReplayTest, H100DeviceEqualsTheNvidiaSmiCapture) {
  auto session = OpenReplay(FixturePath("h100.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const NvmlSampler& sampler = *session->sampler;
  ASSERT_EQ(sampler.devices().size(), 1u);
  const DeviceInfo& d = sampler.devices()[0];
  ExpectSameDevice(d, ImportedDevice("capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"));
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.uuid, kMaskedUuid);
  EXPECT_EQ(d.pci_bus_id, "00000000:00:09.0");
  EXPECT_EQ(d.memory_bytes, static_cast<int64_t>(81559 * kMiB));
  EXPECT_EQ(d.architecture, "Hopper");
  EXPECT_EQ(d.max_sm_clock_mhz, 1980);
  EXPECT_EQ(d.power_limit_w, 700);
  EXPECT_EQ(d.pcie_generation, 5);
  EXPECT_EQ(d.cuda_version, "13.1");
  EXPECT_EQ(d.sm_count, -1);  // nvidia-smi prints no SM count for a whole GPU: absent, not guessed
  EXPECT_TRUE(sampler.gpm_supported(0));
  // topo -m: CPUs 0-19 on NUMA node 0; nvlink -s: 18 active links (far ends unknown).
  const GpuPlacement& p = sampler.topology().gpus[0];
  EXPECT_EQ(p.numa_node, 0);
  ASSERT_EQ(p.cpus.size(), 20u);
  EXPECT_EQ(p.cpus.front(), 0u);
  EXPECT_EQ(p.cpus.back(), 19u);
  EXPECT_EQ(p.active_nvlinks, 18);
  EXPECT_TRUE(sampler.topology().pairs.empty());
}

TEST(NvmlReplayTest, H100PassesReplayIdleThenLoad) {
  auto session = OpenReplay(FixturePath("h100.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  NvmlSampler& sampler = *session->sampler;
  // dmon's pwr column, idle then load (the load values are the capture's 631..636 W).
  EXPECT_EQ(Series(sampler, Metric::kPowerW, 10),
            (std::vector<double>{69, 69, 69, 69, 69, 631, 634, 633, 634, 636}));
  EXPECT_EQ(Series(sampler, Metric::kGpuUtilPct, 10), (std::vector<double>{0, 0, 0, 0, 0, 100, 100, 100, 100, 100}));
  EXPECT_EQ(Series(sampler, Metric::kMemTempC, 10), (std::vector<double>{47, 47, 47, 48, 47, 57, 58, 58, 59, 59}));
  EXPECT_EQ(Series(sampler, Metric::kSmClockMhz, 10),
            (std::vector<double>{345, 345, 345, 345, 345, 1980, 1980, 1980, 1980, 1980}));
}

TEST(NvmlReplayTest, H100LoadPassMemoryAndProcesses) {
  auto session = OpenReplay(FixturePath("h100.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  SampleBatch batch;
  for (int i = 0; i < 6; ++i) session->sampler->Sample(batch);  // pass 6 = first load frame
  EXPECT_EQ(ValuesOf(batch, Metric::kFbUsedBytes), (std::vector<double>{19818 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kFbTotalBytes), (std::vector<double>{81559 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kFbReservedBytes), (std::vector<double>{479 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kPcieTxBytesPerS), (std::vector<double>{3092e3}));
  EXPECT_EQ(ValuesOf(batch, Metric::kPcieReplayCount), (std::vector<double>{9}));
  EXPECT_EQ(ValuesOf(batch, Metric::kEccUncorrectedVolatileCount), (std::vector<double>{0}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessUsedMemoryBytes, Pick{0, -1, 11345}), (std::vector<double>{15690 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessUsedMemoryBytes, Pick{0, -1, 11327}), (std::vector<double>{2566 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessUsedMemoryBytes, Pick{0, -1, 11328}), (std::vector<double>{1542 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 11345}), (std::vector<double>{99}));
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessMemUtilPct, Pick{0, -1, 11345}), (std::vector<double>{10}));
  // memhog's pmon columns are "-": no utilization sample, not zero.
  EXPECT_TRUE(ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 11327}).empty());
  // Unsupported or not captured: absent.
  EXPECT_EQ(CountMetric(batch, Metric::kEnergyMj), 0u);
  EXPECT_EQ(CountMetric(batch, Metric::kNvlinkTxBytesPerS), 0u);
  EXPECT_EQ(CountMetric(batch, Metric::kSmActiveRatio), 0u);  // GPM supported, but the capture has no GPM values
  EXPECT_EQ(CountMetric(batch, Metric::kXidLast), 0u);
  // One GPU entity and three process entities.
  ASSERT_EQ(batch.entities.size(), 4u);
  EXPECT_EQ(batch.entities[0].gpu_uuid, kMaskedUuid);
  EXPECT_EQ(batch.entities[0].pid, -1);
}

TEST(NvmlReplayTest, FramesWrapAroundWithTimestampsThatKeepGoing) {
  std::vector<double> power = ReplaySeries("h100.nvml", Metric::kPowerW, 25);
  ASSERT_EQ(power.size(), 25u);
  for (size_t i = 10; i < power.size(); ++i) EXPECT_EQ(power[i], power[i % 10]) << i;
  // Process samples replay in every round: their timestamps grow past the last seen one.
  EXPECT_EQ(ReplaySeries("h100.nvml", Metric::kProcessSmUtilPct, 20, Pick{0, -1, 11345}),
            (std::vector<double>{-1, -1, -1, -1, -1, 99, 99, 99, 99, 99, -1, -1, -1, -1, -1, 99, 99, 99, 99, 99}));
}

TEST(NvmlReplayTest, H100MigInstancesAndProcessesInTheirInstance) {
  auto session = OpenReplay(FixturePath("h100-mig.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const DeviceInfo& d = session->sampler->devices()[0];
  ExpectSameDevice(d, ImportedDevice("capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt"));
  ASSERT_EQ(d.mig_instances.size(), 4u);
  EXPECT_EQ(d.mig_instances[0].profile, "3g.40gb");
  EXPECT_EQ(d.mig_instances[0].memory_bytes, static_cast<int64_t>(40448 * kMiB));
  EXPECT_EQ(d.mig_instances[0].sm_count, 60);
  EXPECT_EQ(d.mig_instances[3].gpu_instance_id, 10);
  SampleBatch batch;
  for (int i = 0; i < 6; ++i) session->sampler->Sample(batch);
  // MIG mode: no GPU utilization at all (nvidia-smi prints N/A), power is there.
  EXPECT_EQ(CountMetric(batch, Metric::kGpuUtilPct), 0u);
  EXPECT_EQ(CountMetric(batch, Metric::kProcessSmUtilPct), 0u);
  EXPECT_EQ(ValuesOf(batch, Metric::kPowerW), (std::vector<double>{438}));
  // gpu_burn runs in GPU instance 2 (3g.40gb); the instance's own memory is sampled too.
  auto burn = std::find_if(batch.entities.begin(), batch.entities.end(), [](const SeriesEntity& e) { return e.pid == 21198; });
  ASSERT_NE(burn, batch.entities.end());
  EXPECT_EQ(burn->gpu_instance_id, 2);
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessUsedMemoryBytes, Pick{0, -1, 21198}), (std::vector<double>{7484 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kFbUsedBytes, Pick{0, 2}), (std::vector<double>{11091 * kMiB}));
  EXPECT_EQ(ValuesOf(batch, Metric::kFbTotalBytes, Pick{0, 2}), (std::vector<double>{40448 * kMiB}));
  auto gi = std::find_if(batch.entities.begin(), batch.entities.end(),
                         [](const SeriesEntity& e) { return e.gpu_instance_id == 2 && e.pid < 0; });
  ASSERT_NE(gi, batch.entities.end());
  EXPECT_EQ(gi->mig_profile, "3g.40gb");
}

TEST(NvmlReplayTest, H200MigComputeInstancesShareTheirGpuInstance) {
  auto session = OpenReplay(FixturePath("h200-mig.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const DeviceInfo& d = session->sampler->devices()[0];
  ExpectSameDevice(d, ImportedDevice("capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt"));
  std::vector<std::string> profiles;
  for (const MigInstance& m : d.mig_instances) profiles.push_back(m.profile);
  EXPECT_EQ(profiles, (std::vector<std::string>{"1c.3g.71gb", "2c.3g.71gb", "2g.35gb", "1g.18gb", "1g.18gb"}));
  EXPECT_EQ(d.mig_instances[1].compute_instance_id, 1);
  EXPECT_EQ(d.mig_instances[1].sm_count, 32);
  EXPECT_EQ(d.mig_instances[1].memory_bytes, static_cast<int64_t>(71424 * kMiB));
  SampleBatch batch;
  for (int i = 0; i < 6; ++i) session->sampler->Sample(batch);
  EXPECT_EQ(ValuesOf(batch, Metric::kProcessUsedMemoryBytes, Pick{0, -1, 12267}), (std::vector<double>{13526 * kMiB}));
  // One entity per GPU instance: GPU instance 2 holds two compute instances.
  size_t instance_entities = 0;
  for (const SeriesEntity& e : batch.entities) instance_entities += e.gpu_instance_id >= 0 && e.pid < 0 ? 1 : 0;
  EXPECT_EQ(instance_entities, 4u);
  auto gi = std::find_if(batch.entities.begin(), batch.entities.end(),
                         [](const SeriesEntity& e) { return e.gpu_instance_id == 2 && e.pid < 0; });
  ASSERT_NE(gi, batch.entities.end());
  EXPECT_EQ(gi->mig_profile, "3g.71gb");
  EXPECT_EQ(ValuesOf(batch, Metric::kPowerW), (std::vector<double>{295}));
}

TEST(NvmlReplayTest, L40sHasNoMemoryTemperatureAndNoGpm) {
  auto session = OpenReplay(FixturePath("l40s.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  NvmlSampler& sampler = *session->sampler;
  const DeviceInfo& d = sampler.devices()[0];
  ExpectSameDevice(d, ImportedDevice("capture__linux-x86_64__nvidia-l40s__595.80.txt"));
  EXPECT_EQ(d.architecture, "Ada Lovelace");
  EXPECT_EQ(d.compute_major, 8);
  EXPECT_EQ(d.compute_minor, 9);
  EXPECT_FALSE(sampler.gpm_supported(0));
  EXPECT_EQ(sampler.topology().gpus[0].active_nvlinks, 0);  // "Device does not have or support Nvlink"
  EXPECT_EQ(Series(sampler, Metric::kMemTempC, 10), std::vector<double>(10, -1));  // GDDR6: absent, not zero
  session = InvalidInput("closed");  // sessions on one library share its frames
  auto load = [](Metric metric, Pick pick = {}) {
    std::vector<double> all = testing::ReplaySeries("l40s.nvml", metric, 10, pick);
    return all.size() == 10 ? std::vector<double>(all.begin() + 5, all.end()) : all;
  };
  EXPECT_EQ(load(Metric::kGpuTempC), (std::vector<double>{53, 53, 53, 52, 52}));
  EXPECT_EQ(load(Metric::kEncoderUtilPct), (std::vector<double>{67, 59, 63, 59, 67}));
  EXPECT_EQ(load(Metric::kProcessSmUtilPct, Pick{0, -1, 20038}), (std::vector<double>{6, 5, 8, 7, 5}));
}

TEST(NvmlReplayTest, EightGpuFixtureHasDistinctGpus) {
  auto session = OpenReplay(FixturePath("h100x8.nvml"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const auto& devices = session->sampler->devices();
  ASSERT_EQ(devices.size(), 8u);
  std::vector<std::string> uuids, buses;
  for (const DeviceInfo& d : devices) {
    uuids.push_back(d.uuid);
    buses.push_back(d.pci_bus_id);
    EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  }
  EXPECT_EQ(uuids[0], kMaskedUuid);
  EXPECT_EQ(uuids[7], "GPU-00000000-0000-0000-0000-000000000007");
  EXPECT_EQ(buses[7], "00000000:00:10.0");
  std::sort(uuids.begin(), uuids.end());
  std::sort(buses.begin(), buses.end());
  EXPECT_EQ(std::unique(uuids.begin(), uuids.end()), uuids.end());
  EXPECT_EQ(std::unique(buses.begin(), buses.end()), buses.end());
  EXPECT_EQ(devices[5].index, 5);
  EXPECT_EQ(devices[5].minor_number, 5);
  EXPECT_EQ(session->sampler->topology().pairs.size(), 28u);  // every pair listed, levels unknown
  EXPECT_EQ(session->sampler->topology().pairs[0].path, "");
  SampleBatch batch;
  session->sampler->Sample(batch);
  for (int32_t gpu = 0; gpu < 8; ++gpu) EXPECT_EQ(ValuesOf(batch, Metric::kPowerW, Pick{gpu}), (std::vector<double>{69}));
}

}  // namespace
}  // namespace kraken::nvml

namespace kraken::nvml {
namespace {

// KRAKEN_NVML_REPLAY_PID_MAP (test-only): captured pids reported as this machine's.
TEST(NvmlReplayTest, PidMapReportsCapturedProcessesUnderMappedPids) {
  ::setenv("KRAKEN_NVML_REPLAY_PID_MAP", "11345:4242,11327:self/5", 1);
  std::vector<double> sm = testing::ReplaySeries("h100.nvml", Metric::kProcessSmUtilPct, 6, testing::Pick{0, -1, 4242});
  EXPECT_EQ(sm, (std::vector<double>{-1, -1, -1, -1, -1, 99}));
  // self/5: this test process has no sixth child, so 11327 stays as captured.
  EXPECT_EQ(testing::ReplaySeries("h100.nvml", Metric::kProcessUsedMemoryBytes, 6, testing::Pick{0, -1, 11327}).back(),
            2690646016);
  EXPECT_EQ(testing::ReplaySeries("h100.nvml", Metric::kProcessUsedMemoryBytes, 6, testing::Pick{0, -1, 4242}).back(),
            16452157440);
  ::setenv("KRAKEN_NVML_REPLAY_PID_MAP", "11345=4242", 1);
  auto bad = testing::OpenReplay(testing::FixturePath("h100.nvml"));
  ::unsetenv("KRAKEN_NVML_REPLAY_PID_MAP");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("KRAKEN_NVML_REPLAY_PID_MAP: '11345=4242' is not CAPTURED:PID"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace kraken::nvml
