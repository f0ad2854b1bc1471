// The nvidia-smi importer on small inline logs of each kind, as users write them, and on
// broken input: repeated headers, noheader/nounits, dmon -o DT, bad rows, junk.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "importers/import_testing.h"

namespace kraken {
namespace {

using testing::ImportCounter;
using testing::SampleValues;
using testing::kMiB;
using testing::kSecondNs;

// 2026-07-14 00:00:00 read as UTC.
constexpr int64_t kJuly14 = 1783987200LL * kSecondNs;

Profile ImportText(const std::string& text) {
  auto result = ImportBuffer(BuiltinImporters(), "inline.txt", text);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->empty()) return Profile();
  EXPECT_EQ(result->size(), 1u);
  EXPECT_EQ((*result)[0].metadata.format, "nvidia-smi");
  return std::move((*result)[0]);
}

const Series* Find(const Profile& p, Metric metric, int32_t gpu, const std::string& source = "") {
  for (const Series& s : p.series) {
    if (s.metric == metric && s.entity.gpu_index == gpu && (source.empty() || s.source_name == source)) return &s;
  }
  return nullptr;
}

std::vector<int64_t> Times(const Series* s) {
  std::vector<int64_t> times;
  if (s != nullptr)
    for (const Sample& sample : s->samples) times.push_back(sample.time_ns);
  return times;
}

TEST(NvidiaSmiFormatsTest, QueryGpuLogWithRepeatedHeaderTwoGpusThreeSamples) {
  const std::string header =
      "timestamp, index, name, uuid, pci.bus_id, memory.used [MiB], power.draw [W], utilization.gpu [%]\n";
  Profile p = ImportText(
      header +
      "2026/07/14 08:00:00.000, 0, NVIDIA A100-SXM4-40GB, GPU-aaaa, 00000000:07:00.0, 100 MiB, 60.50 W, 0 %\n"
      "2026/07/14 08:00:00.010, 1, NVIDIA A100-SXM4-40GB, GPU-bbbb, 00000000:0F:00.0, 200 MiB, 61.25 W, 5 %\n" +
      header +
      "2026/07/14 08:00:01.000, 0, NVIDIA A100-SXM4-40GB, GPU-aaaa, 00000000:07:00.0, 1100 MiB, 250.00 W, 97 %\n"
      "2026/07/14 08:00:01.010, 1, NVIDIA A100-SXM4-40GB, GPU-bbbb, 00000000:0F:00.0, 1200 MiB, 255.00 W, 98 %\n" +
      header +
      "2026/07/14 08:00:02.000, 0, NVIDIA A100-SXM4-40GB, GPU-aaaa, 00000000:07:00.0, 2100 MiB, 300.00 W, 100 %\n"
      "2026/07/14 08:00:02.010, 1, NVIDIA A100-SXM4-40GB, GPU-bbbb, 00000000:0F:00.0, 2200 MiB, 301.00 W, 99 %\n");
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[0].uuid, "GPU-aaaa");
  EXPECT_EQ(p.devices[1].pci_bus_id, "00000000:0F:00.0");
  EXPECT_EQ(p.series.size(), 6u);  // 3 metrics x 2 GPUs
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, 0)), (std::vector<double>{60.5, 250, 300}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, 1)), (std::vector<double>{61.25, 255, 301}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kFbUsedBytes, 1)), (std::vector<double>{200 * kMiB, 1200 * kMiB, 2200 * kMiB}));
  EXPECT_EQ(
      Times(Find(p, Metric::kGpuUtilPct, 1)),
      (std::vector<int64_t>{kJuly14 + 8 * 3600 * kSecondNs + 10'000'000, kJuly14 + (8 * 3600 + 1) * kSecondNs + 10'000'000,
                            kJuly14 + (8 * 3600 + 2) * kSecondNs + 10'000'000}));
  EXPECT_EQ(Find(p, Metric::kGpuUtilPct, 1)->entity.gpu_uuid, "GPU-bbbb");
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_bad_rows"), 0);
}

TEST(NvidiaSmiFormatsTest, NounitsValuesTakeTheHeaderUnits) {
  Profile p = ImportText(
      "index, memory.used [MiB], power.draw [W], clocks.current.sm [MHz]\n"
      "0, 1024, 75.5, 1410\n"
      "0, 2048, 80.0, 1395\n");
  EXPECT_EQ(SampleValues(Find(p, Metric::kFbUsedBytes, 0)), (std::vector<double>{1024 * kMiB, 2048 * kMiB}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kSmClockMhz, 0)), (std::vector<double>{1410, 1395}));
  // No timestamp column: one sample per repeat of the GPU, a second apart.
  EXPECT_EQ(Times(Find(p, Metric::kPowerW, 0)), (std::vector<int64_t>{0, kSecondNs}));
  EXPECT_FALSE(p.metadata.attributes["query_csv_times"].empty());
  EXPECT_EQ(p.metadata.attributes.count("timestamps"), 0u);  // no wall clock was read
}

TEST(NvidiaSmiFormatsTest, NoheaderRowsLoggedAroundOneHeader) {
  // A script that logs ,noheader,nounits rows and printed the header once, after some rows.
  Profile p = ImportText(
      "2026/07/14 08:00:00.000, 3, 40\n"
      "timestamp, index, temperature.gpu\n"
      "2026/07/14 08:00:01.000, 3, 41\n"
      "2026/07/14 08:00:02.000, 3, 43\n");
  EXPECT_EQ(SampleValues(Find(p, Metric::kGpuTempC, 3)), (std::vector<double>{40, 41, 43}));
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].index, 3);
}

TEST(NvidiaSmiFormatsTest, BadRowsAreCountedAndTheRestIsRead) {
  Profile p = ImportText(
      "timestamp, index, memory.used [MiB], utilization.gpu [%]\n"
      "2026/07/14 08:00:00.000, 0, 10 MiB, 1 %\n"
      "2026/07/14 08:00:01.000, 0, 11 MiB\n"         // truncated row
      "2026/07/14 08:00:02.000, 0, lots MiB, 3 %\n"  // unparsable number
      "2026/07/14 25:00:03.000, 0, 13 MiB, 4 %\n"    // impossible clock
      "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error\n"
      "2026/07/14 08:00:04.000, 0, 14 MiB, [Not Supported]\n");  // placeholder: no sample
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_bad_rows"), 2);
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_unparsable_values"), 1);
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_bad_timestamps"), 1);
  EXPECT_EQ(SampleValues(Find(p, Metric::kFbUsedBytes, 0)), (std::vector<double>{10 * kMiB, 14 * kMiB}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kGpuUtilPct, 0)), (std::vector<double>{1, 3}));
}

TEST(NvidiaSmiFormatsTest, DmonWithDateAndTimeAndPcieColumns) {
  Profile p = ImportText(
      "#Date       Time        gpu    pwr  gtemp     sm    mem  rxpci  txpci\n"
      "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %   MB/s   MB/s\n"
      " 20260714   08:00:00      0    100     40     50     10     12      3\n"
      " 20260714   08:00:00      1    110     41      -     11      0     40\n"
      " 20260714   08:00:02      0    120     42     60     12    100     20\n"
      " 20260714   08:00:02      1    130     43     70     13      5      6\n");
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, 1)), (std::vector<double>{110, 130}));
  EXPECT_EQ(Times(Find(p, Metric::kPowerW, 1)),
            (std::vector<int64_t>{kJuly14 + 8 * 3600 * kSecondNs, kJuly14 + (8 * 3600 + 2) * kSecondNs}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kGpuUtilPct, 1)), (std::vector<double>{70}));  // "-" is no sample
  EXPECT_EQ(SampleValues(Find(p, Metric::kPcieRxBytesPerS, 0)), (std::vector<double>{12e6, 100e6}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kPcieTxBytesPerS, 1)), (std::vector<double>{40e6, 6e6}));
  EXPECT_EQ(p.metadata.attributes["timestamps"], "local time, zone unknown");
  EXPECT_EQ(p.devices.size(), 2u);
}

TEST(NvidiaSmiFormatsTest, DmonGarbageRowsAndRepeatedHeader) {
  Profile p = ImportText(
      "# gpu    pwr  gtemp\n"
      "# Idx      W      C\n"
      "    0     69     41\n"
      "    0     70\n"         // truncated
      "    x     70     41\n"  // no GPU index
      "    0    7O!     41\n"  // unparsable
      "# gpu    pwr  gtemp\n"
      "# Idx      W      C\n"
      "    0     71     43\n");
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_bad_rows"), 2);
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_unparsable_values"), 1);
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, 0)), (std::vector<double>{69, 71}));
  // The garbled row still took its place on the 1 s clock.
  EXPECT_EQ(Times(Find(p, Metric::kGpuTempC, 0)), (std::vector<int64_t>{0, kSecondNs, 2 * kSecondNs}));
}

TEST(NvidiaSmiFormatsTest, PmonWithTimeOfDayAndFbColumn) {
  Profile p = ImportText(
      "#Time        gpu         pid   type     fb     sm    mem    command\n"
      "#HH:MM:SS    Idx           #    C/G     MB      %      %    name\n"
      " 23:59:59      0        4242     C    8123     87     30    python3\n"
      " 00:00:00      0        4242     C    8125     88     31    python3\n"
      " 00:00:00      1           -     -       -      -      -    -\n");
  const Series* fb = Find(p, Metric::kProcessUsedMemoryBytes, 0, "fb");
  ASSERT_NE(fb, nullptr);
  EXPECT_EQ(fb->entity.pid, 4242);
  EXPECT_EQ(fb->entity.process_name, "python3");
  EXPECT_EQ(SampleValues(fb), (std::vector<double>{8123 * kMiB, 8125 * kMiB}));
  // Past midnight the clock counts on into the next day.
  EXPECT_EQ(Times(fb), (std::vector<int64_t>{(23 * 3600 + 59 * 60 + 59) * kSecondNs, 86400 * kSecondNs}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kProcessSmUtilPct, 0)), (std::vector<double>{87, 88}));
}

TEST(NvidiaSmiFormatsTest, ReportLogWithTwoGpusAndTwoSnapshots) {
  auto report = [](int second, int used_mib) {
    return "\n==============NVSMI LOG==============\n\n"
           "Timestamp                                 : Tue Jul 14 08:00:0" +
           std::to_string(second) +
           " 2026\n"
           "Driver Version                            : 535.104.05\n"
           "CUDA Version                              : 12.2\n\n"
           "Attached GPUs                             : 2\n"
           "GPU 00000000:07:00.0\n"
           "    Product Name                          : NVIDIA A100-SXM4-40GB\n"
           "    Some Future Group\n"
           "        Some Future Key                   : 12 widgets\n"
           "    GPU UUID                              : GPU-aaaa\n"
           "    FB Memory Usage\n"
           "        Total                             : 40960 MiB\n"
           "        Used                              : " +
           std::to_string(used_mib) +
           " MiB\n"
           "GPU 00000000:0F:00.0\n"
           "    Product Name                          : NVIDIA A100-SXM4-40GB\n"
           "    GPU UUID                              : GPU-bbbb\n"
           "    Power Readings\n"
           "        Power Draw                        : 61.00 W\n"
           "        Enforced Power Limit              : 400.00 W\n";
  };
  Profile p = ImportText(report(0, 100) + report(5, 300));
  ASSERT_EQ(p.devices.size(), 2u);
  // -q prints no index: GPUs are numbered in the order the report lists them.
  EXPECT_EQ(p.devices[1].index, 1);
  EXPECT_EQ(p.devices[1].power_limit_w, 400);
  EXPECT_EQ(p.devices[0].memory_bytes, static_cast<int64_t>(40960 * kMiB));
  EXPECT_EQ(p.devices[0].driver_version, "535.104.05");
  const Series* used = Find(p, Metric::kFbUsedBytes, 0);
  EXPECT_EQ(SampleValues(used), (std::vector<double>{100 * kMiB, 300 * kMiB}));
  EXPECT_EQ(Times(used), (std::vector<int64_t>{kJuly14 + 8 * 3600 * kSecondNs, kJuly14 + (8 * 3600 + 5) * kSecondNs}));
  EXPECT_EQ(SampleValues(Find(p, Metric::kPowerW, 1)), (std::vector<double>{61, 61}));
}

TEST(NvidiaSmiFormatsTest, MaskedUuidsOnDifferentBusesAreTwoGpus) {
  Profile p = ImportText(
      "timestamp, index, uuid, pci.bus_id, temperature.gpu\n"
      "2026/07/14 08:00:00.000, 0, GPU-00000000-0000-0000-0000-000000000000, 00000000:07:00.0, 30\n"
      "2026/07/14 08:00:00.000, 1, GPU-00000000-0000-0000-0000-000000000000, 00000000:0F:00.0, 31\n");
  EXPECT_EQ(p.devices.size(), 2u);
}

std::string Banner(const std::string& title, const std::string& command) {
  std::string rule(80, '#');
  return rule + "\n# " + title + "\n" + (command.empty() ? "" : "# $ " + command + "\n") + rule + "\n";
}

TEST(NvidiaSmiFormatsTest, CaptureWithAnEmptySectionAndDmonInterval) {
  Profile p = ImportText(Banner("load :: query-gpu", "nvidia-smi --query-gpu=index --format=csv") + "\n\n" +
                         Banner("load :: topo -m", "nvidia-smi topo -m") + "GPU0\t X \t0-19\n" +
                         Banner("load :: dmon", "nvidia-smi dmon -c 2 -d 5") +
                         "# gpu    pwr\n# Idx      W\n    0    300\n    0    310\n");
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_empty_sections"), 1);
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_sections_skipped"), 1);
  EXPECT_EQ(ImportCounter(p, "nvidia_smi_sections_read"), 1);
  const Series* power = Find(p, Metric::kPowerW, 0);
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(power->entity.labels.at("phase"), "load");
  EXPECT_EQ(Times(power), (std::vector<int64_t>{0, 5 * kSecondNs}));  // -d 5 from the banner's command
}

TEST(NvidiaSmiFormatsTest, CaptureWithNothingUsableIsAnError) {
  auto result = ImportBuffer(
      BuiltinImporters(), "help.txt",
      Banner("capabilities :: help (-h)", "nvidia-smi -h") + "NVIDIA System Management Interface -- v590.48.01\n");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(result.status().message().find("help.txt: line 1: no nvidia-smi output"), std::string::npos)
      << result.status().message();
}

TEST(NvidiaSmiFormatsTest, SnifferAnswersYesOnlyOnNvidiaSmiSignatures) {
  auto importer = CreateNvidiaSmiImporter();
  for (const char* head : {
           "timestamp, name, pci.bus_id, utilization.gpu [%]\n2026/07/14 08:00:00.000, A100, 0000",
           "index, memory.used [MiB]\n0, 10 MiB\n",
           "utilization.gpu [%], memory.used [MiB]\n",
           "# gpu    pwr  gtemp  mtemp     sm\n# Idx      W      C      C      %\n",
           "#Date       Time        gpu   pwr\n",
           "# gpu         pid   type     sm    mem    command\n",
           "\n==============NVSMI LOG==============\n\nTimestamp : Tue Jul 14 08:12:38 2026\n",
           "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n",
       }) {
    EXPECT_EQ(importer->Sniff(head), SniffResult::kYes) << head;
  }
  std::string junk =
      "\x7f"
      "ELF\x02\x01\x01";
  junk += std::string(64, '\0');
  for (const std::string& head : std::vector<std::string>{junk, "timestamp,name,value\n1,2,3\n", "# just a comment\n",
                                                          "{\"traceEvents\": []}", "ID,Kernel Name,Metric Name\n",
                                                          "timestamp\ndriver_version\n", std::string(200, '\x01')}) {
    EXPECT_EQ(importer->Sniff(head), SniffResult::kNo) << head;
  }
}

}  // namespace
}  // namespace kraken
