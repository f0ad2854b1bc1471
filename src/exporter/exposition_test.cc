#include "exporter/exposition.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "exporter/exported_metrics.h"
#include "importers/common/exposition_parser.h"
#include "importers/registry.h"

namespace kraken::exporter {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Two H100s, the second with one MIG instance, and one process (which must not show up).
SampleBatch TwoGpuBatch() {
  SampleBatch batch;
  batch.time_ns = 1'700'000'000'000'000'000;
  SeriesEntity gpu0;
  gpu0.gpu_index = 0;
  gpu0.gpu_uuid = "GPU-aaaa";
  gpu0.gpu_name = "NVIDIA H100 80GB HBM3";
  gpu0.pci_bus_id = "00000000:18:00.0";
  SeriesEntity gpu1 = gpu0;
  gpu1.gpu_index = 1;
  gpu1.gpu_uuid = "GPU-bbbb";
  gpu1.pci_bus_id = "00000000:2A:00.0";
  SeriesEntity mig = gpu1;
  mig.gpu_instance_id = 3;
  mig.mig_profile = "3g.40gb";
  SeriesEntity process = gpu0;
  process.pid = 4242;
  batch.entities = {gpu0, gpu1, mig, process};
  batch.values = {
      {Metric::kGpuUtilPct, 0, 87, ""},
      {Metric::kGpuUtilPct, 1, 12, ""},
      {Metric::kFbUsedBytes, 0, 40960 * kMiB, ""},
      {Metric::kFbUsedBytes, 2, 1024 * kMiB, ""},
      {Metric::kPowerW, 0, 612.25, ""},
      {Metric::kEnergyMj, 0, 128996013, ""},
      {Metric::kSmActiveRatio, 2, 0.4375, ""},
      {Metric::kProcessUsedMemoryBytes, 3, 512 * kMiB, ""},
  };
  return batch;
}

// "# DCGM_FI_X, gauge, help" rows of dcgm-exporter's counters CSV, commented ones included.
struct CsvRow {
  std::string type;
  std::string help;
};
std::map<std::string, CsvRow> ReadCountersCsv(const std::string& relative) {
  std::map<std::string, CsvRow> rows;
  const std::string content = testing::ReadFileOrDie(testing::DataPath(relative));
  for (std::string_view line : Split(content, '\n')) {
    line = Trim(line);
    if (!line.empty() && line.front() == '#') line = Trim(line.substr(1));
    if (line.rfind("DCGM_FI_", 0) != 0) continue;
    size_t first = line.find(',');
    size_t second = first == std::string_view::npos ? first : line.find(',', first + 1);
    if (second == std::string_view::npos) continue;
    rows[std::string(Trim(line.substr(0, first)))] = {std::string(Trim(line.substr(first + 1, second - first - 1))),
                                                     std::string(Trim(line.substr(second + 1)))};
  }
  return rows;
}

TEST(ExportedMetricsTest, NamesTypesAndHelpAreDcgmExportersOwn) {
  std::map<std::string, CsvRow> csv = ReadCountersCsv("dcgm/dcgm-exporter_etc_default-counters.csv");
  ASSERT_EQ(csv.size(), 57u);  // rows, commented ones included
  size_t checked = 0;
  for (const ExportedMetric& m : ExportedMetrics()) {
    ASSERT_NE(m.dcgm, nullptr);
    EXPECT_EQ(m.dcgm->metric, m.metric);
    auto row = csv.find(std::string(m.dcgm->field));
    if (row == csv.end()) continue;
    ++checked;
    EXPECT_EQ(row->second.type, m.dcgm->type == prometheus::PromType::kCounter ? "counter" : "gauge")
        << m.dcgm->field;
    EXPECT_EQ(row->second.help, m.help) << m.dcgm->field;
  }
  // 42 exported families; FB_TOTAL, ENFORCED_POWER_LIMIT, PROF_NVLINK_TX/RX and
  // ROW_REMAP_PENDING have no row.
  EXPECT_EQ(ExportedMetrics().size(), 42u);
  EXPECT_EQ(checked, 37u);
}

// The Prometheus type of every catalog field (the WIP's PromType column) is the one
// dcgm-exporter declares for it, in both counters CSVs.
TEST(ExportedMetricsTest, CatalogTypesAreThoseOfTheCountersCsvs) {
  for (const char* file : {"dcgm/dcgm-exporter_etc_default-counters.csv", "dcgm/dcgm-exporter_etc_dcp-metrics-included.csv"}) {
    std::map<std::string, CsvRow> csv = ReadCountersCsv(file);
    size_t checked = 0;
    for (const prometheus::DcgmMetricEntry& entry : prometheus::DcgmMetricCatalog()) {
      auto row = csv.find(std::string(entry.field));
      if (row == csv.end()) continue;
      ++checked;
      EXPECT_EQ(row->second.type, entry.type == prometheus::PromType::kCounter ? "counter" : "gauge")
          << file << ": " << entry.field;
    }
    EXPECT_EQ(checked, 46u) << file;
  }
}

TEST(ExpositionTest, RendersDcgmExporterNamesLabelsAndUnits) {
  SampleBatch batch = TwoGpuBatch();
  std::vector<DeviceInfo> devices(2);
  devices[0].uuid = "GPU-aaaa";
  devices[0].minor_number = 4;  // /dev/nvidia4 although NVML index 0
  devices[1].uuid = "GPU-bbbb";
  AgentStats stats{1234, 0.0015, 0};
  std::string text;
  RenderExposition({&batch, &devices, "node-7", &stats}, text);

  EXPECT_NE(text.find("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"),
            std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-aaaa\",pci_bus_id=\"00000000:18:00.0\","
                      "device=\"nvidia4\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-7\"} 87\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-aaaa\",pci_bus_id=\"00000000:18:00.0\","
                      "device=\"nvidia4\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-7\"} 40960\n"),
            std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_PROF_SM_ACTIVE{gpu=\"1\",UUID=\"GPU-bbbb\",pci_bus_id=\"00000000:2A:00.0\","
                      "device=\"nvidia1\",modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"3g.40gb\","
                      "GPU_I_ID=\"3\",Hostname=\"node-7\"} 0.4375\n"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"), std::string::npos);
  EXPECT_NE(text.find("kraken_agent_samples_total{Hostname=\"node-7\"} 1234\n"), std::string::npos);
  EXPECT_NE(text.find("kraken_agent_sample_duration_seconds{Hostname=\"node-7\"} 0.0015\n"), std::string::npos);
  // Absent, never zero: nobody reported a temperature; processes are not exported.
  EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_TEMP"), std::string::npos);
  EXPECT_EQ(text.find("4242"), std::string::npos);

  // Every line is valid exposition, and each family has one HELP and one TYPE.
  std::map<std::string, int> help_count;
  int samples = 0;
  prometheus::ExpositionLine line;
  for (std::string_view raw : Split(text, '\n')) {
    if (raw.empty()) continue;
    prometheus::ParseExpositionLine(raw, &line);
    ASSERT_NE(line.kind, prometheus::LineKind::kInvalid) << raw << ": " << line.error;
    if (line.kind == prometheus::LineKind::kHelp) ++help_count[line.metric_name];
    if (line.kind == prometheus::LineKind::kSample) ++samples;
  }
  EXPECT_EQ(samples, 10);  // 7 DCGM values (the process value dropped) + 3 agent metrics
  EXPECT_EQ(help_count.size(), 8u);
  for (const auto& [name, count] : help_count) EXPECT_EQ(count, 1) << name;
}

// kraken reads its own output back with its dcgm-exporter importer: same metrics, values
// in canonical units, the same GPUs and MIG instance.
TEST(ExpositionTest, KrakensOwnImporterReadsItBack) {
  SampleBatch batch = TwoGpuBatch();
  std::string text;
  RenderExposition({&batch, nullptr, "node-7", nullptr}, text);
  ImportOptions options;
  options.forced_format = "prometheus-text";
  auto profiles = ImportBuffer(BuiltinImporters(), "agent.prom", text, options);
  ASSERT_TRUE(profiles.ok()) << profiles.status().message();
  ASSERT_EQ(profiles->size(), 1u);
  const Profile& p = (*profiles)[0];
  ASSERT_EQ(p.series.size(), 7u);
  std::map<std::string, double> values;
  for (const Series& s : p.series) {
    ASSERT_EQ(s.samples.size(), 1u);
    EXPECT_EQ(s.entity.hostname, "node-7");
    std::string key = std::string(GetMetricInfo(s.metric).name) + "/" + std::to_string(s.entity.gpu_index) + "/" +
                      std::to_string(s.entity.gpu_instance_id);
    values[key] = s.samples[0].value;
  }
  EXPECT_EQ(values["gpu_util_pct/0/-1"], 87);
  EXPECT_EQ(values["gpu_util_pct/1/-1"], 12);
  EXPECT_EQ(values["fb_used_bytes/0/-1"], 40960 * kMiB);
  EXPECT_EQ(values["fb_used_bytes/1/3"], 1024 * kMiB);
  EXPECT_EQ(values["power_w/0/-1"], 612.25);
  EXPECT_EQ(values["energy_mj/0/-1"], 128996013);
  EXPECT_EQ(values["sm_active_ratio/1/3"], 0.4375);
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[1].uuid, "GPU-bbbb");
}

// The label names kraken writes are the ones real dcgm-exporter scrapes carry (T4/A10G
// fixture: gpu, UUID, device, modelName, Hostname, container, namespace, pod; A100 MIG:
// GPU_I_PROFILE, GPU_I_ID), plus pci_bus_id, which dcgm-exporter 3.x adds.
TEST(ExpositionTest, LabelNamesAreThoseOfRealScrapes) {
  std::set<std::string> real;
  prometheus::ExpositionLine line;
  for (const char* file : {"dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt",
                           "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom"}) {
    const std::string content = testing::ReadFileOrDie(testing::DataPath(file));
    for (std::string_view raw : Split(content, '\n')) {
      prometheus::ParseExpositionLine(raw, &line);
      if (line.kind == prometheus::LineKind::kSample)
        for (const prometheus::Label& l : line.labels) real.insert(l.name);
    }
  }
  SampleBatch batch = TwoGpuBatch();
  batch.entities[0].pod = "trainer-0";
  batch.entities[0].namespace_name = "ml";
  batch.entities[0].container = "pytorch";
  std::string text;
  RenderExposition({&batch, nullptr, "node-7", nullptr}, text);
  std::set<std::string> ours;
  for (std::string_view raw : Split(text, '\n')) {
    prometheus::ParseExpositionLine(raw, &line);
    if (line.kind == prometheus::LineKind::kSample)
      for (const prometheus::Label& l : line.labels) ours.insert(l.name);
  }
  EXPECT_EQ(ours, (std::set<std::string>{"gpu", "UUID", "pci_bus_id", "device", "modelName", "GPU_I_PROFILE",
                                         "GPU_I_ID", "Hostname", "container", "namespace", "pod"}));
  for (const std::string& name : ours)
    if (name != "pci_bus_id") {
      EXPECT_TRUE(real.count(name)) << name << " is in no real dcgm-exporter scrape";
    }
}

TEST(ExpositionTest, NothingSampledYetIsAnEmptyPage) {
  std::string text = "stale";
  RenderExposition({}, text);
  EXPECT_EQ(text, "");
}

}  // namespace
}  // namespace kraken::exporter
