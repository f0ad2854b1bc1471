// Golden tests of the nvidia-smi importer on the four real captures in shared/data/nvidia-smi
// (H100, H100 with MIG, H200 with MIG, L40S). Expected values were read from the files with an
// independent Python reader of the banners, CSV rows and dmon/pmon columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "importers/import_testing.h"

namespace kraken {
namespace {

using testing::SampleValues;
using testing::kMiB;
using testing::kSecondNs;

constexpr char kH100[] = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
constexpr char kH100Mig[] = "nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt";
constexpr char kH200Mig[] = "nvidia-smi/capture__linux-x86_64__nvidia-h200-mig__590.48.01.txt";
constexpr char kL40s[] = "nvidia-smi/capture__linux-x86_64__nvidia-l40s__595.80.txt";
constexpr char kMaskedUuid[] = "GPU-00000000-0000-0000-0000-000000000000";

Profile ImportCapture(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return Profile();
  EXPECT_EQ(result->size(), 1u);
  return std::move((*result)[0]);
}

std::string Phase(const Series& s) {
  auto it = s.entity.labels.find("phase");
  return it == s.entity.labels.end() ? "" : it->second;
}

std::vector<const Series*> FindAll(const Profile& p, Metric metric, const std::string& source, const std::string& phase,
                                   int64_t pid = -1) {
  std::vector<const Series*> found;
  for (const Series& s : p.series) {
    if (s.metric == metric && s.source_name == source && Phase(s) == phase && s.entity.pid == pid) {
      found.push_back(&s);
    }
  }
  return found;
}

const Series* Find(const Profile& p, Metric metric, const std::string& source, const std::string& phase,
                   int64_t pid = -1) {
  auto found = FindAll(p, metric, source, phase, pid);
  EXPECT_LE(found.size(), 1u) << source;
  return found.empty() ? nullptr : found[0];
}

size_t CountMetric(const Profile& p, Metric metric) {
  return static_cast<size_t>(
      std::count_if(p.series.begin(), p.series.end(), [&](const Series& s) { return s.metric == metric; }));
}

TEST(NvidiaSmiCaptureTest, EveryCaptureImportsCleanly) {
  struct Expected {
    const char* file;
    int64_t skipped;  // help x5, topo, nvlink, field list, 2 default tables (+ symbol list)
  };
  for (const Expected& e : {Expected{kH100, 11}, Expected{kH100Mig, 11}, Expected{kH200Mig, 10}, Expected{kL40s, 10}}) {
    Profile p = ImportCapture(e.file);
    EXPECT_EQ(p.metadata.format, "nvidia-smi") << e.file;
    EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kNvidia);
    ASSERT_EQ(p.devices.size(), 1u) << e.file;
    EXPECT_EQ(p.devices[0].index, 0);
    EXPECT_EQ(p.devices[0].uuid, kMaskedUuid);
    // -L, then -q, query-gpu, compute-apps, accounted-apps, retired-pages, pmon, dmon per phase.
    EXPECT_EQ(p.import_counters["nvidia_smi_sections_read"], 15) << e.file;
    EXPECT_EQ(p.import_counters["nvidia_smi_sections_skipped"], e.skipped) << e.file;
    for (const char* bad : {"nvidia_smi_bad_rows", "nvidia_smi_unparsable_values", "nvidia_smi_bad_timestamps",
                            "nvidia_smi_unknown_units", "nvidia_smi_empty_sections"}) {
      EXPECT_EQ(p.import_counters.count(bad), 0u) << e.file << " " << bad;
    }
    EXPECT_EQ(p.metadata.attributes["timestamps"], "local time, zone unknown");
    EXPECT_EQ(p.metadata.hostname, "");  // hostname is [N/A] in every capture
  }
}

TEST(NvidiaSmiCaptureTest, H100DeviceMergedFromListReportAndQuery) {
  Profile p = ImportCapture(kH100);
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceInfo& d = p.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.pci_bus_id, "00000000:00:09.0");
  EXPECT_EQ(d.architecture, "Hopper");
  EXPECT_EQ(d.memory_bytes, static_cast<int64_t>(81559 * kMiB));
  EXPECT_EQ(d.max_sm_clock_mhz, 1980);
  EXPECT_EQ(d.max_mem_clock_mhz, 2619);
  EXPECT_EQ(d.power_limit_w, 700);
  EXPECT_EQ(d.pcie_generation, 5);
  EXPECT_EQ(d.pcie_link_width, 16);
  EXPECT_EQ(d.driver_version, "590.48.01");
  EXPECT_EQ(d.cuda_version, "13.1");
  EXPECT_EQ(d.compute_major, 9);
  EXPECT_EQ(d.compute_minor, 0);
  EXPECT_EQ(d.minor_number, 0);
  EXPECT_FALSE(d.mig_enabled);
  EXPECT_FALSE(d.mig_enabled_pending);
  EXPECT_TRUE(d.mig_instances.empty());
  EXPECT_EQ(p.metadata.attributes["driver_version"], "590.48.01");
  EXPECT_EQ(p.metadata.attributes["cuda_version"], "13.1");
  EXPECT_EQ(p.metadata.attributes["capture.collected_at"], "2026-07-14T08:12:38Z");
}

TEST(NvidiaSmiCaptureTest, H100LoadPhaseDmonSamples) {
  Profile p = ImportCapture(kH100);
  const Series* power = Find(p, Metric::kPowerW, "pwr", "load");
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(SampleValues(power), (std::vector<double>{631, 634, 633, 634, 636}));
  // dmon -c 5 prints no clock: samples sit 1 s apart (dmon's default interval) from the
  // load phase's last timestamp (--query-compute-apps at 08:12:53.500), on the capture's
  // one epoch clock.
  ASSERT_EQ(power->samples.size(), 5u);
  EXPECT_EQ(power->samples[0].time_ns, 1'784'016'773'500'000'000);
  EXPECT_EQ(power->samples[4].time_ns, 1'784'016'773'500'000'000 + 4 * kSecondNs);
  EXPECT_EQ(p.metadata.attributes["time_base"].substr(0, 6), "epoch:");
  EXPECT_EQ(power->entity.gpu_index, 0);
  EXPECT_EQ(power->entity.gpu_name, "NVIDIA H100 80GB HBM3");  // filled in from -L / -q
  EXPECT_EQ(power->entity.pci_bus_id, "00000000:00:09.0");
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, "pwr", "idle")), (std::vector<double>{69, 69, 69, 69, 69}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kGpuUtilPct, "sm", "load")), (std::vector<double>{100, 100, 100, 100, 100}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kMemTempC, "mtemp", "load")), (std::vector<double>{57, 58, 58, 59, 59}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kSmClockMhz, "pclk", "load")), (std::vector<double>{1980, 1980, 1980, 1980, 1980}));
  EXPECT_NE(p.metadata.attributes["dmon_times"].find("1 s"), std::string::npos);
}

TEST(NvidiaSmiCaptureTest, H100PerProcessSeries) {
  Profile p = ImportCapture(kH100);
  const Series* burn_sm = Find(p, Metric::kProcessSmUtilPct, "sm", "load", 11345);
  ASSERT_NE(burn_sm, nullptr);
  EXPECT_EQ(burn_sm->entity.process_name, "gpu_burn");
  EXPECT_EQ(SampleValues(burn_sm), (std::vector<double>{99, 99, 99, 99, 99}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessMemUtilPct, "mem", "load", 11345)),
            (std::vector<double>{10, 10, 10, 10, 10}));
  // memhog's pmon columns are all "-": no series rather than zeros.
  EXPECT_EQ(Find(p, Metric::kProcessSmUtilPct, "sm", "load", 11327), nullptr);

  const Series* burn_mem = Find(p, Metric::kProcessUsedMemoryBytes, "used_gpu_memory", "load", 11345);
  ASSERT_NE(burn_mem, nullptr);
  EXPECT_EQ(burn_mem->entity.process_name, "./gpu_burn");
  EXPECT_EQ(burn_mem->entity.gpu_uuid, kMaskedUuid);
  ASSERT_EQ(burn_mem->samples.size(), 1u);
  EXPECT_EQ(burn_mem->samples[0].value, 15690 * kMiB);
  EXPECT_EQ(burn_mem->samples[0].time_ns, 1784016773500000000);  // 2026/07/14 08:12:53.500 read as UTC
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessUsedMemoryBytes, "used_gpu_memory", "load", 11327)),
            (std::vector<double>{2566 * kMiB}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessUsedMemoryBytes, "used_gpu_memory", "load", 11328)),
            (std::vector<double>{1542 * kMiB}));
  // The -q report of the same phase lists the same processes.
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessUsedMemoryBytes, "Processes/Used GPU Memory", "load", 11345)),
            (std::vector<double>{15690 * kMiB}));
  EXPECT_EQ(CountMetric(p, Metric::kProcessUsedMemoryBytes), 6u);
}

TEST(NvidiaSmiCaptureTest, H100QueryGpuRowsKeepTheirPhase) {
  Profile p = ImportCapture(kH100);
  const Series* used = Find(p, Metric::kFbUsedBytes, "memory.used", "load");
  ASSERT_NE(used, nullptr);
  ASSERT_EQ(used->samples.size(), 1u);
  EXPECT_EQ(used->samples[0].value, 19818 * kMiB);
  EXPECT_EQ(used->samples[0].time_ns, 1784016773353000000);  // 2026/07/14 08:12:53.353
  EXPECT_EQ(SampleValues(Find(p, Metric::kFbUsedBytes, "memory.used", "idle")), (std::vector<double>{0}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, "power.draw", "load")), (std::vector<double>{631.95}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kGpuUtilPct, "utilization.gpu", "load")), (std::vector<double>{100}));
  // power.draw.average is not a second power_w series while power.draw is there.
  EXPECT_EQ(Find(p, Metric::kPowerW, "power.draw.average", "load"), nullptr);
  EXPECT_EQ(SampleValues(Find(p, Metric::kOther, "power.draw.instant", "idle")), (std::vector<double>{69.62}));
  // -q of the load phase: FB used and the PCIe throughput in KB/s.
  EXPECT_EQ(SampleValues(Find(p, Metric::kFbUsedBytes, "FB Memory Usage/Used", "load")), (std::vector<double>{19818 * kMiB}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kPcieTxBytesPerS, "PCI/Tx Throughput", "idle")), (std::vector<double>{352e3}));
}

TEST(NvidiaSmiCaptureTest, H100MigInstancesWithProfiles) {
  Profile p = ImportCapture(kH100Mig);
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceInfo& d = p.devices[0];
  EXPECT_TRUE(d.mig_enabled);
  EXPECT_TRUE(d.mig_enabled_pending);
  struct Mig {
    int gi, ci;
    const char* profile;
    double mib;
    int sms;
  };
  const Mig expected[] = {{2, 0, "3g.40gb", 40448, 60},
                          {3, 0, "2g.20gb", 20096, 32},
                          {9, 0, "1g.10gb", 9984, 16},
                          {10, 0, "1g.10gb", 9984, 16}};
  ASSERT_EQ(d.mig_instances.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(d.mig_instances[i].gpu_instance_id, expected[i].gi) << i;
    EXPECT_EQ(d.mig_instances[i].compute_instance_id, expected[i].ci) << i;
    EXPECT_EQ(d.mig_instances[i].profile, expected[i].profile) << i;
    EXPECT_EQ(d.mig_instances[i].memory_bytes, static_cast<int64_t>(expected[i].mib * kMiB)) << i;
    EXPECT_EQ(d.mig_instances[i].sm_count, expected[i].sms) << i;
  }
  // -q puts the processes in GPU instance 2, whose profile -L names.
  const Series* burn = Find(p, Metric::kProcessUsedMemoryBytes, "Processes/Used GPU Memory", "load", 21198);
  ASSERT_NE(burn, nullptr);
  EXPECT_EQ(burn->entity.gpu_instance_id, 2);
  EXPECT_EQ(burn->entity.mig_profile, "3g.40gb");
  EXPECT_EQ(SampleValues(burn), (std::vector<double>{7484 * kMiB}));
  EXPECT_EQ(burn->samples[0].time_ns, 1784019644000000000);  // Tue Jul 14 09:00:44 2026
  // MIG mode: utilization is [N/A] in query-gpu and "-" in dmon, so there is no series.
  EXPECT_EQ(CountMetric(p, Metric::kGpuUtilPct), 0u);
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, "pwr", "load")), (std::vector<double>{438, 440, 437, 439, 439}));
}

TEST(NvidiaSmiCaptureTest, H200MigComputeInstancesShareAGpuInstance) {
  Profile p = ImportCapture(kH200Mig);
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceInfo& d = p.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.pci_bus_id, "00000000:83:00.0");
  EXPECT_EQ(d.memory_bytes, static_cast<int64_t>(143771 * kMiB));
  EXPECT_EQ(d.max_mem_clock_mhz, 3201);
  EXPECT_TRUE(d.mig_enabled);
  ASSERT_EQ(d.mig_instances.size(), 5u);
  std::vector<std::string> profiles;
  for (const MigInstance& m : d.mig_instances) profiles.push_back(m.profile);
  EXPECT_EQ(profiles, (std::vector<std::string>{"1c.3g.71gb", "2c.3g.71gb", "2g.35gb", "1g.18gb", "1g.18gb"}));
  EXPECT_EQ(d.mig_instances[1].gpu_instance_id, 2);
  EXPECT_EQ(d.mig_instances[1].compute_instance_id, 1);
  EXPECT_EQ(d.mig_instances[1].sm_count, 32);
  EXPECT_EQ(d.mig_instances[1].memory_bytes, static_cast<int64_t>(71424 * kMiB));
  const Series* burn = Find(p, Metric::kProcessUsedMemoryBytes, "Processes/Used GPU Memory", "load", 12267);
  ASSERT_NE(burn, nullptr);
  EXPECT_EQ(burn->entity.mig_profile, "3g.71gb");  // the GPU instance's profile, without "2c."
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessUsedMemoryBytes, "used_gpu_memory", "load", 12267)),
            (std::vector<double>{13526 * kMiB}));
  // --query-accounted-apps: lifetime statistics, kept under their own names.
  const Series* accounted = Find(p, Metric::kOther, "gpu_utilization", "idle", 10550);
  ASSERT_NE(accounted, nullptr);
  EXPECT_EQ(accounted->entity.labels.at("unit"), "%");
  EXPECT_EQ(SampleValues(accounted), (std::vector<double>{97}));
  EXPECT_EQ(accounted->samples[0].time_ns, 1783117321643000000);  // 2026/07/03 22:22:01.643
}

TEST(NvidiaSmiCaptureTest, L40sHasNoMemoryTemperature) {
  Profile p = ImportCapture(kL40s);
  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceInfo& d = p.devices[0];
  EXPECT_EQ(d.name, "NVIDIA L40S");
  EXPECT_EQ(d.architecture, "Ada Lovelace");
  EXPECT_EQ(d.memory_bytes, static_cast<int64_t>(46068 * kMiB));
  EXPECT_EQ(d.driver_version, "595.80");
  EXPECT_EQ(d.cuda_version, "13.2");
  EXPECT_EQ(d.pcie_generation, 4);
  EXPECT_EQ(d.max_sm_clock_mhz, 2520);
  EXPECT_EQ(d.power_limit_w, 350);
  EXPECT_EQ(d.compute_major, 8);
  EXPECT_EQ(d.compute_minor, 9);
  EXPECT_FALSE(d.mig_enabled);
  // GDDR6: dmon's mtemp is "-", -q says N/A, query-gpu says N/A. Absent, not zero.
  EXPECT_EQ(CountMetric(p, Metric::kMemTempC), 0u);
  EXPECT_EQ(SampleValues(Find(p, Metric::kGpuTempC, "gtemp", "load")), (std::vector<double>{53, 53, 53, 52, 52}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kEncoderUtilPct, "enc", "load")), (std::vector<double>{67, 59, 63, 59, 67}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessSmUtilPct, "sm", "load", 20038)), (std::vector<double>{6, 5, 8, 7, 5}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessUsedMemoryBytes, "used_gpu_memory", "load", 20038)),
            (std::vector<double>{681 * kMiB}));
}

// Memory health: the H100 and L40S print remapped rows (counts 0, "Pending: No") in -q and
// in --query-gpu, and "N/A" for retired pages (an Ampere-and-newer GPU remaps rows instead);
// with MIG on, the H100 and H200 print "Remapped Rows: N/A": no series.
TEST(NvidiaSmiCaptureTest, MemoryHealthFromTheReportAndTheQuery) {
  const Metric remapped[] = {Metric::kRemappedRowsCorrectableCount, Metric::kRemappedRowsUncorrectableCount,
                             Metric::kRemappedRowsPending, Metric::kRemappedRowsFailure};
  const Metric retired[] = {Metric::kRetiredPagesSbeCount, Metric::kRetiredPagesDbeCount,
                            Metric::kRetiredPagesPending};
  for (const char* file : {kH100, kL40s}) {
    Profile p = ImportCapture(file);
    for (Metric metric : remapped) {
      std::vector<std::string> sources;
      for (const Series& s : p.series) {
        if (s.metric != metric) continue;
        sources.push_back(s.source_name);
        for (double v : SampleValues(&s)) EXPECT_EQ(v, 0) << file << " " << s.source_name;
      }
      EXPECT_EQ(sources.size(), 4u) << file << " " << GetMetricInfo(metric).name;  // -q and the query, idle and load
      EXPECT_NE(std::find_if(sources.begin(), sources.end(),
                             [](const std::string& s) { return s.starts_with("Remapped Rows/"); }),
                sources.end())
          << file;
      EXPECT_NE(std::find_if(sources.begin(), sources.end(),
                             [](const std::string& s) { return s.starts_with("remapped_rows."); }),
                sources.end())
          << file;
    }
    for (Metric metric : retired) EXPECT_EQ(CountMetric(p, metric), 0u) << file;
  }
  for (const char* file : {kH100Mig, kH200Mig}) {
    Profile p = ImportCapture(file);
    for (Metric metric : remapped) EXPECT_EQ(CountMetric(p, metric), 0u) << file;
  }
}

}  // namespace
}  // namespace kraken
