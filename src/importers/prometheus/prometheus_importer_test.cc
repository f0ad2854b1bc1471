// Golden tests of the prometheus-text importer on the real dcgm-exporter captures in
// shared/data/dcgm (values read from the files by hand and with grep), plus inline
// edge cases and the sniffing contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "importers/import_testing.h"

namespace kraken {
namespace {

using testing::ImportCounter;
using testing::ImportOne;
using testing::kMiB;

constexpr char kA100Mig[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kT4A10g[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";

Result<std::vector<Profile>> ImportText(std::string text) {
  ImportOptions options;
  options.forced_format = "prometheus-text";
  return ImportBuffer(BuiltinImporters(), "inline.prom", std::move(text), options);
}

Profile ImportTextOrDie(std::string text) {
  auto result = ImportText(std::move(text));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  return std::move((*result)[0]);
}

// The series named `name` of the whole GPU (gpu_instance_id -1) or of one MIG instance.
const Series* FindSeries(const Profile& p, std::string_view name, int32_t gpu_instance_id = -1) {
  for (const Series& s : p.series)
    if (s.source_name == name && s.entity.gpu_instance_id == gpu_instance_id) return &s;
  return nullptr;
}

const Importer& Prometheus() { return *BuiltinImporters().FindByName("prometheus-text"); }

TEST(PrometheusImporterTest, EveryDcgmCaptureImports) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::DataDir() + "/dcgm")) {
    std::string path = entry.path().string();
    if (!(path.ends_with(".prom") || path.ends_with(".txt"))) continue;
    auto result = ImportFile(BuiltinImporters(), path);
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_EQ(result->size(), 1u);
    EXPECT_EQ((*result)[0].metadata.format, "prometheus-text") << path;
    EXPECT_EQ(ImportCounter((*result)[0], "prometheus_unparsable_lines"), 0) << path;
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST(PrometheusImporterTest, A100MigCapture) {
  Profile p = ImportOne(kA100Mig);
  EXPECT_EQ(p.metadata.format, "prometheus-text");
  // 17 whole-GPU series and 4 of GPU instance 13, one sample each, no timestamps.
  EXPECT_EQ(p.series.size(), 21u);
  EXPECT_EQ(ImportCounter(p, "prometheus_samples"), 21);
  EXPECT_EQ(p.metadata.attributes["timestamps"], "none");
  EXPECT_EQ(p.metadata.hostname, "ub20-a100-k8s");
  EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kNvidia);
  EXPECT_TRUE(p.metric_declarations.empty());  // this exporter wrote no # HELP/# TYPE

  const Series* tensor = FindSeries(p, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE");
  const Series* tensor_mig = FindSeries(p, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 13);
  ASSERT_NE(tensor, nullptr);
  ASSERT_NE(tensor_mig, nullptr);
  EXPECT_NE(tensor, tensor_mig);
  EXPECT_EQ(tensor->metric, Metric::kTensorActiveRatio);
  ASSERT_EQ(tensor->samples.size(), 1u);
  EXPECT_DOUBLE_EQ(tensor->samples[0].value, 0.929260);
  EXPECT_EQ(tensor->samples[0].time_ns, 0);
  EXPECT_DOUBLE_EQ(tensor_mig->samples.at(0).value, 0.930433);
  EXPECT_EQ(tensor_mig->entity.mig_profile, "1g.5gb");
  EXPECT_EQ(tensor_mig->entity.gpu_index, 0);
  EXPECT_DOUBLE_EQ(FindSeries(p, "DCGM_FI_PROF_DRAM_ACTIVE", 13)->samples.at(0).value, 0.800339);
  EXPECT_DOUBLE_EQ(FindSeries(p, "DCGM_FI_PROF_GR_ENGINE_ACTIVE")->samples.at(0).value, 0.995630);

  const Series* fb_used = FindSeries(p, "DCGM_FI_DEV_FB_USED");
  ASSERT_NE(fb_used, nullptr);
  EXPECT_EQ(fb_used->metric, Metric::kFbUsedBytes);
  EXPECT_EQ(fb_used->samples.at(0).value, 4845 * kMiB);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_FB_FREE")->samples.at(0).value, 35690 * kMiB);
  const Series* power = FindSeries(p, "DCGM_FI_DEV_POWER_USAGE");
  EXPECT_EQ(power->metric, Metric::kPowerW);
  EXPECT_DOUBLE_EQ(power->samples.at(0).value, 409.692);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")->samples.at(0).value, 319159391);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_SM_CLOCK")->metric, Metric::kSmClockMhz);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_MEMORY_TEMP")->samples.at(0).value, 69);
  const Series* pcie_rx = FindSeries(p, "DCGM_FI_PROF_PCIE_RX_BYTES");
  EXPECT_EQ(pcie_rx->metric, Metric::kPcieRxBytesPerS);
  EXPECT_EQ(pcie_rx->samples.at(0).value, 97863601);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_PROF_PCIE_TX_BYTES")->samples.at(0).value, 33011804);
  // No canonical metric: kept under its own name.
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_VGPU_LICENSE_STATUS")->metric, Metric::kOther);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL")->metric, Metric::kOther);

  const SeriesEntity& entity = power->entity;
  EXPECT_EQ(entity.gpu_uuid, "GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
  EXPECT_EQ(entity.hostname, "ub20-a100-k8s");
  EXPECT_EQ(entity.gpu_instance_id, -1);
  ASSERT_EQ(entity.labels.size(), 1u);
  EXPECT_EQ(entity.labels.at("device"), "nvidia0");

  ASSERT_EQ(p.devices.size(), 1u);
  const DeviceInfo& gpu = p.devices[0];
  EXPECT_EQ(gpu.index, 0);
  EXPECT_EQ(gpu.uuid, "GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
  EXPECT_EQ(gpu.name, "");  // the 2.4-era exporter wrote no modelName
  EXPECT_TRUE(gpu.mig_enabled);
  ASSERT_EQ(gpu.mig_instances.size(), 1u);
  EXPECT_EQ(gpu.mig_instances[0].gpu_instance_id, 13);
  EXPECT_EQ(gpu.mig_instances[0].profile, "1g.5gb");
}

TEST(PrometheusImporterTest, T4AndA10gFixture) {
  Profile p = ImportOne(kT4A10g);
  EXPECT_EQ(p.series.size(), 38u);
  EXPECT_EQ(ImportCounter(p, "prometheus_samples"), 38);
  ASSERT_EQ(p.metric_declarations.size(), 38u);
  size_t without_help = std::count_if(p.metric_declarations.begin(), p.metric_declarations.end(),
                                      [](const MetricDeclaration& d) { return d.help.empty(); });
  EXPECT_EQ(without_help, 21u);
  const MetricDeclaration& first = p.metric_declarations.front();
  EXPECT_EQ(first.source_name, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(first.type, "gauge");
  EXPECT_EQ(first.help, "SM clock frequency (in MHz).");
  EXPECT_EQ(first.metric, Metric::kSmClockMhz);
  auto energy = std::find_if(p.metric_declarations.begin(), p.metric_declarations.end(),
                             [](const MetricDeclaration& d) { return d.source_name == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"; });
  ASSERT_NE(energy, p.metric_declarations.end());
  EXPECT_EQ(energy->type, "counter");

  // Three physical GPUs: two T4s (on two hosts, both gpu="0") and an A10G.
  ASSERT_EQ(p.devices.size(), 3u);
  EXPECT_EQ(p.devices[0].uuid, "GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e");
  EXPECT_EQ(p.devices[0].name, "Tesla T4");
  EXPECT_EQ(p.devices[0].driver_version, "460.106.00");
  EXPECT_EQ(p.devices[1].uuid, "GPU-9ef1b6d0-3643-5dd7-b823-c0ec20dcf2d5");
  EXPECT_EQ(p.devices[1].name, "Tesla T4");
  EXPECT_EQ(p.devices[1].driver_version, "470.182.03");
  EXPECT_EQ(p.devices[1].memory_bytes, static_cast<int64_t>(15109 * kMiB));  // DCGM_FI_DEV_FB_TOTAL
  EXPECT_EQ(p.devices[2].uuid, "GPU-abc");
  EXPECT_EQ(p.devices[2].name, "NVIDIA A10G");
  for (const DeviceInfo& d : p.devices) {
    EXPECT_EQ(d.index, 0);
    EXPECT_FALSE(d.mig_enabled);
  }
  // Several hosts: none is the profile's hostname, all are listed.
  EXPECT_EQ(p.metadata.hostname, "");
  EXPECT_EQ(p.metadata.attributes["hostnames"], "424773df46e0,551bdf382151,ip-11111");

  const Series* dram = FindSeries(p, "DCGM_FI_PROF_DRAM_ACTIVE");
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->metric, Metric::kDramActiveRatio);
  EXPECT_DOUBLE_EQ(dram->samples.at(0).value, 0.000003);
  EXPECT_EQ(dram->entity.pod, "ray-1111111");
  EXPECT_EQ(dram->entity.namespace_name, "ray-llm");
  EXPECT_EQ(dram->entity.container, "ray-worker");
  EXPECT_EQ(dram->entity.gpu_name, "NVIDIA A10G");
  EXPECT_EQ(dram->entity.labels.at("DCGM_FI_DEV_SERIAL"), "1111111");

  const Series* clock = FindSeries(p, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(clock->samples.at(0).value, 300);
  EXPECT_EQ(clock->entity.labels.at("DCGM_FI_PROCESS_NAME"), "/usr/bin/dcgm-exporter");
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_POWER_MGMT_LIMIT")->samples.at(0).value, 70);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_FB_RESERVED")->samples.at(0).value, 15109 * kMiB);

  // The hand-made block: no labels at all, value 0.
  const Series* fan = FindSeries(p, "DCGM_FI_DEV_FAN_SPEED");
  ASSERT_NE(fan, nullptr);
  EXPECT_EQ(fan->metric, Metric::kOther);
  EXPECT_EQ(fan->entity.gpu_index, -1);
  EXPECT_TRUE(fan->entity.gpu_uuid.empty());
  EXPECT_TRUE(fan->entity.labels.empty());
  EXPECT_EQ(fan->samples.at(0).value, 0);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_PROF_PIPE_FP64_ACTIVE")->metric, Metric::kFp64ActiveRatio);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_PROF_SM_OCCUPANCY")->metric, Metric::kSmOccupancyRatio);
}

TEST(PrometheusImporterTest, BlankSentinelsAreMissingValuesNotNumbers) {
  Profile p = ImportTextOrDie(
      "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\",UUID=\"GPU-1\"} 9223372036854775794\n"
      "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-1\"} 41\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\"} 140737488355328.000000\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\"} 250.500000\n");
  EXPECT_EQ(ImportCounter(p, "prometheus_dcgm_blank_values"), 2);
  EXPECT_EQ(ImportCounter(p, "prometheus_series_without_values"), 1);  // MEMORY_TEMP had only a blank
  ASSERT_EQ(p.series.size(), 2u);
  EXPECT_EQ(FindSeries(p, "DCGM_FI_DEV_MEMORY_TEMP"), nullptr);
  const Series* power = FindSeries(p, "DCGM_FI_DEV_POWER_USAGE");
  ASSERT_EQ(power->samples.size(), 1u);
  EXPECT_EQ(power->samples[0].value, 250.5);
  ASSERT_EQ(p.devices.size(), 1u);  // the GPU is still known
}

TEST(PrometheusImporterTest, ConcatenatedScrapesKeepEverySample) {
  Profile p = ImportTextOrDie(
      "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\r\n"
      "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\r\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\"} 10 1700000000000\r\n"
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-1\",gpu=\"0\"} 20 1700000030000\r\n"  // label order differs
      "\r\n"
      "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\r\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-2\"} 30 1700000030000\r\n");
  ASSERT_EQ(p.series.size(), 2u);
  ASSERT_EQ(p.series[0].samples.size(), 2u);
  EXPECT_EQ(p.series[0].metric, Metric::kGpuUtilPct);
  EXPECT_EQ(p.series[0].samples[0].time_ns, 1700000000000000000);
  EXPECT_EQ(p.series[0].samples[1].time_ns, 1700000030000000000);
  EXPECT_EQ(p.series[0].samples[1].value, 20);
  EXPECT_EQ(p.series[1].entity.gpu_index, 1);
  EXPECT_EQ(p.metadata.attributes["timestamps"], "ms");
  ASSERT_EQ(p.metric_declarations.size(), 1u);
  EXPECT_EQ(p.metric_declarations[0].type, "gauge");
  EXPECT_EQ(p.devices.size(), 2u);
}

TEST(PrometheusImporterTest, OldNamesLabelsAndNonFiniteValues) {
  Profile p = ImportTextOrDie(
      "# HELP dcgm_fb_used Framebuffer memory used (in MiB).\n"
      "dcgm_fb_used{gpu=\"2\",uuid=\"GPU-7\",pod_name=\"trainer\",pod_namespace=\"ml\",container_name=\"\"} 1024\n"
      "dcgm_gpu_utilization{gpu=\"2\",uuid=\"GPU-7\"} NaN\n"
      "dcgm_gpu_utilization{gpu=\"2\",uuid=\"GPU-7\"} +Inf\n"
      "dcgm_gpu_utilization{gpu=\"2\",uuid=\"GPU-7\"} 55\n"
      "node_load1{path=\"a\\\\b\\\"c\\nd\"} 0.5\n"
      "weird{gpu=\"zero\"} 1\n");
  const Series* fb = FindSeries(p, "dcgm_fb_used");
  ASSERT_NE(fb, nullptr);
  EXPECT_EQ(fb->metric, Metric::kFbUsedBytes);
  EXPECT_EQ(fb->samples.at(0).value, 1024 * kMiB);
  EXPECT_EQ(fb->entity.gpu_uuid, "GPU-7");
  EXPECT_EQ(fb->entity.gpu_index, 2);
  EXPECT_EQ(fb->entity.pod, "trainer");
  EXPECT_EQ(fb->entity.namespace_name, "ml");
  EXPECT_TRUE(fb->entity.labels.empty());
  ASSERT_EQ(p.metric_declarations.size(), 1u);
  EXPECT_EQ(p.metric_declarations[0].type, "untyped");
  EXPECT_EQ(p.metric_declarations[0].current_name, "DCGM_FI_DEV_FB_USED");
  const Series* util = FindSeries(p, "dcgm_gpu_utilization");
  ASSERT_EQ(util->samples.size(), 1u);
  EXPECT_EQ(util->samples[0].value, 55);
  EXPECT_EQ(ImportCounter(p, "prometheus_non_finite_values"), 2);
  const Series* other = FindSeries(p, "node_load1");
  EXPECT_EQ(other->metric, Metric::kOther);
  EXPECT_EQ(other->entity.labels.at("path"), "a\\b\"c\nd");
  // An unreadable gpu index is kept as a label rather than dropped.
  EXPECT_EQ(FindSeries(p, "weird")->entity.labels.at("gpu"), "zero");
  EXPECT_EQ(p.devices.size(), 1u);  // devices come from DCGM series only
  EXPECT_EQ(p.metadata.attributes["timestamps"], "none");
}

TEST(PrometheusImporterTest, BadLinesAreCountedAndTheImportGoesOn) {
  Profile p = ImportTextOrDie(
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\"} 12\n"
      "garbage line here\n"
      "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-1\"} 1410 99999999999999999\n"  // ms beyond int64 ns
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-");  // truncated last line
  EXPECT_EQ(ImportCounter(p, "prometheus_unparsable_lines"), 2);
  EXPECT_EQ(ImportCounter(p, "prometheus_timestamps_out_of_range"), 1);
  ASSERT_EQ(p.series.size(), 1u);
  EXPECT_EQ(p.series[0].samples.at(0).value, 12);
}

TEST(PrometheusImporterTest, UnusableInputsAreInvalidInput) {
  auto junk = ImportText(std::string("\x7f\x45\x4c\x46\x02\x01\x01\x00junk\nmore junk\n", 23));
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(junk.status().message().find("inline.prom: line 1: "), std::string::npos) << junk.status().message();
  auto comments = ImportText("# just a comment\n\n");
  ASSERT_FALSE(comments.ok());
  EXPECT_NE(comments.status().message().find("line 1: no metric samples"), std::string::npos);
  // Not sniffed as anything at all.
  auto sniffed = ImportBuffer(BuiltinImporters(), "blob.bin", std::string("\x00\x01\x02\x03\xff", 5));
  EXPECT_FALSE(sniffed.ok());
}

// Every prefix and many byte-flipped copies of a real capture: each import either
// succeeds with only stored, finite values or fails as InvalidInput, never otherwise.
TEST(PrometheusImporterTest, CorruptedCapturesImportOrFailCleanly) {
  const std::string original = testing::ReadFileOrDie(testing::DataPath(kT4A10g));
  size_t imported = 0, rejected = 0;
  auto check = [&](std::string text) {
    for (const auto& importer : BuiltinImporters().importers()) importer->Sniff(text.substr(0, kSniffBytes));
    auto result = ImportText(std::move(text));
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), StatusCode::kInvalidInput);
      ++rejected;
      return;
    }
    ++imported;
    for (const Series& s : (*result)[0].series) {
      ASSERT_FALSE(s.samples.empty());
      for (const Sample& sample : s.samples) ASSERT_TRUE(std::isfinite(sample.value));
    }
  };
  for (size_t cut = 1; cut < original.size(); cut += 37) check(original.substr(0, cut));
  uint32_t state = 12345;  // fixed LCG: the same corruptions every run
  for (int round = 0; round < 300; ++round) {
    std::string text = original;
    for (int flips = 0; flips < 8; ++flips) {
      state = state * 1664525u + 1013904223u;
      text[state % text.size()] = static_cast<char>(state >> 24);
    }
    check(std::move(text));
  }
  EXPECT_GT(imported, 300u);  // almost every corruption leaves most lines readable
  EXPECT_GE(rejected, 1u);    // the shortest prefixes hold no complete line
}

TEST(PrometheusImporterTest, SniffsExpositionTextOnly) {
  EXPECT_EQ(Prometheus().Sniff(testing::ReadFileOrDie(testing::DataPath(kA100Mig))), SniffResult::kYes);
  EXPECT_EQ(Prometheus().Sniff(testing::ReadFileOrDie(testing::DataPath(kT4A10g)).substr(0, kSniffBytes)),
            SniffResult::kYes);
  EXPECT_EQ(Prometheus().Sniff("# HELP up Whether the target is up.\n# TYPE up gauge\nup 1\n"), SniffResult::kYes);
  EXPECT_EQ(Prometheus().Sniff("up 1\nprocess_cpu_seconds_total{a=\"b\"} 2.5\n"), SniffResult::kMaybe);
  EXPECT_EQ(Prometheus().Sniff("{\"schemaVersion\": 1, \"traceEvents\": []}"), SniffResult::kNo);
  EXPECT_EQ(Prometheus().Sniff("timestamp, name, pci.bus_id, utilization.gpu [%]\n"
                               "2024/01/01 00:00:00.000, NVIDIA A100, 00000000:07:00.0, 87 %\n"),
            SniffResult::kNo);
  EXPECT_EQ(Prometheus().Sniff("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\"\n\"0\",\"1\",\"python\",\"h\"\n"),
            SniffResult::kNo);
  EXPECT_EQ(Prometheus().Sniff("Name,Profile,Memory_footprint,SM_usage,Duration\nk,0,1,2,3\n"), SniffResult::kNo);
  EXPECT_EQ(Prometheus().Sniff(testing::ReadFileOrDie(
                testing::DataPath("dcgm/dcgm-exporter_etc_default-counters.csv"))),
            SniffResult::kNo);
  EXPECT_EQ(Prometheus().Sniff(std::string("\x1f\x8b\x08\x00\x00", 5)), SniffResult::kNo);
  // The real files are routed to this importer by the registry.
  EXPECT_EQ(BuiltinImporters().Sniff(testing::ReadFileOrDie(testing::DataPath(kA100Mig))), &Prometheus());
}

}  // namespace
}  // namespace kraken
