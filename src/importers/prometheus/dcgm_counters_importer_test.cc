// Golden tests of the dcgm-counters importer on dcgm-exporter's own collectors CSVs
// (counts taken with grep: rows with 2 commas outside comments, and "# FIELD, type, ..."
// comments), plus inline edge cases and the sniffing contract.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "importers/import_testing.h"

namespace kraken {
namespace {

using testing::ImportCounter;
using testing::ImportOne;

constexpr char kDefault[] = "dcgm/dcgm-exporter_etc_default-counters.csv";
constexpr char kDcp[] = "dcgm/dcgm-exporter_etc_dcp-metrics-included.csv";
constexpr char kOldNames[] = "dcgm/dcgm-exporter_etc_1.x-compatibility-metrics.csv";

Result<std::vector<Profile>> ImportCsv(std::string text) {
  ImportOptions options;
  options.forced_format = "dcgm-counters";
  return ImportBuffer(BuiltinImporters(), "inline.csv", std::move(text), options);
}

const MetricDeclaration* Find(const Profile& p, std::string_view name) {
  for (const MetricDeclaration& d : p.metric_declarations)
    if (d.source_name == name) return &d;
  return nullptr;
}

const Importer& Counters() { return *BuiltinImporters().FindByName("dcgm-counters"); }

TEST(DcgmCountersImporterTest, DefaultCounters) {
  Profile p = ImportOne(kDefault);
  EXPECT_EQ(p.metadata.format, "dcgm-counters");
  EXPECT_EQ(p.metric_declarations.size(), 26u);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_enabled"), 26);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_commented_out"), 37);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_bad_rows"), 0);
  EXPECT_EQ(p.metadata.attributes["dcgm_names"], "current");

  const MetricDeclaration& first = p.metric_declarations.front();
  EXPECT_EQ(first.source_name, "DCGM_FI_DEV_SM_CLOCK");
  EXPECT_EQ(first.type, "gauge");
  EXPECT_EQ(first.help, "SM clock frequency (in MHz).");
  EXPECT_EQ(first.metric, Metric::kSmClockMhz);
  // The enabled PCIe entry is the DCGM rate (gauge); the NVML counter is commented out.
  const MetricDeclaration* pcie_tx = Find(p, "DCGM_FI_PROF_PCIE_TX_BYTES");
  ASSERT_NE(pcie_tx, nullptr);
  EXPECT_EQ(pcie_tx->type, "gauge");
  EXPECT_EQ(pcie_tx->metric, Metric::kPcieTxBytesPerS);
  EXPECT_EQ(pcie_tx->help,
            "The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - "
            "in bytes per second.");
  EXPECT_EQ(Find(p, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER")->type, "counter");
  // "DCGM_FI_DEV_DEC_UTIL ,     gauge, ..." has a stray space before its comma.
  const MetricDeclaration* dec = Find(p, "DCGM_FI_DEV_DEC_UTIL");
  ASSERT_NE(dec, nullptr);
  EXPECT_EQ(dec->metric, Metric::kDecoderUtilPct);
  EXPECT_EQ(Find(p, "DCGM_FI_DRIVER_VERSION")->type, "label");
  EXPECT_EQ(Find(p, "DCGM_FI_DEV_FB_RESERVED")->metric, Metric::kFbReservedBytes);
  EXPECT_EQ(Find(p, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE")->metric, Metric::kTensorActiveRatio);
  // Commented out, so not declared.
  EXPECT_EQ(Find(p, "DCGM_FI_PROF_SM_ACTIVE"), nullptr);
  EXPECT_EQ(Find(p, "DCGM_EXP_CLOCK_EVENTS_COUNT"), nullptr);
  EXPECT_EQ(Find(p, "DCGM_FI_DEV_VGPU_LICENSE_STATUS")->metric, Metric::kOther);
}

TEST(DcgmCountersImporterTest, DcpMetricsIncluded) {
  Profile p = ImportOne(kDcp);
  EXPECT_EQ(p.metric_declarations.size(), 26u);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_commented_out"), 33);  // no DCGM_EXP_* block
  EXPECT_EQ(Find(p, "DCGM_FI_PROF_DRAM_ACTIVE")->type, "gauge");
  EXPECT_EQ(Find(p, "DCGM_FI_PROF_PCIE_RX_BYTES")->type, "gauge");
}

TEST(DcgmCountersImporterTest, OldCompatibilityNames) {
  Profile p = ImportOne(kOldNames);
  // 22 rows; dcgm_fi_prof_pcie_tx_bytes and _rx_bytes are listed twice.
  EXPECT_EQ(p.metric_declarations.size(), 20u);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_duplicate_fields"), 2);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_commented_out"), 19);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_unknown_fields"), 0);
  EXPECT_EQ(p.metadata.attributes["dcgm_names"], "1.x");
  const MetricDeclaration* util = Find(p, "dcgm_gpu_utilization");
  ASSERT_NE(util, nullptr);
  EXPECT_EQ(util->metric, Metric::kGpuUtilPct);
  EXPECT_EQ(util->current_name, "DCGM_FI_DEV_GPU_UTIL");
  EXPECT_EQ(Find(p, "dcgm_memory_clock")->current_name, "DCGM_FI_DEV_MEM_CLOCK");
  EXPECT_EQ(Find(p, "dcgm_fb_used")->metric, Metric::kFbUsedBytes);
  const MetricDeclaration* pcie = Find(p, "dcgm_fi_prof_pcie_tx_bytes");
  EXPECT_EQ(pcie->type, "counter");  // the first of the two rows is kept
  EXPECT_EQ(pcie->help, "Total number of bytes transmitted through PCIe TX via NVML.");
  EXPECT_EQ(pcie->metric, Metric::kPcieTxBytesPerS);
  const MetricDeclaration* nvlink = Find(p, "dcgm_nvlink_bandwidth_total");
  EXPECT_EQ(nvlink->metric, Metric::kOther);
  EXPECT_EQ(nvlink->current_name, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL");
  size_t mapped = std::count_if(p.metric_declarations.begin(), p.metric_declarations.end(),
                                [](const MetricDeclaration& d) { return !d.current_name.empty(); });
  EXPECT_EQ(mapped, 20u);
}

TEST(DcgmCountersImporterTest, InlineEdgeCases) {
  auto result = ImportCsv(
      "# DCGM FIELD, Prometheus metric type, help message\r\n"
      "DCGM_FI_DEV_GPU_UTIL, GAUGE , GPU utilization, averaged (in %).\r\n"
      "DCGM_FI_DEV_FB_USED, gauge, \"Framebuffer, used \"\"MiB\"\"\"\r\n"
      "DCGM_FI_DEV_SM_CLOCK gauge SM clock\r\n"
      "DCGM_FI_DEV_MEM_CLOCK, histogram, Memory clock\r\n"
      "   #   DCGM_FI_PROF_SM_ACTIVE, gauge, ratio\r\n"
      "MY_FIELD, gauge, not a DCGM field");
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Profile& p = (*result)[0];
  ASSERT_EQ(p.metric_declarations.size(), 3u);
  EXPECT_EQ(p.metric_declarations[0].type, "gauge");
  EXPECT_EQ(p.metric_declarations[0].help, "GPU utilization, averaged (in %).");
  EXPECT_EQ(p.metric_declarations[1].help, "Framebuffer, used \"MiB\"");
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_help_with_commas"), 1);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_bad_rows"), 2);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_commented_out"), 1);
  EXPECT_EQ(ImportCounter(p, "dcgm_counters_unknown_fields"), 1);
}

TEST(DcgmCountersImporterTest, UnusableInputsAreInvalidInput) {
  auto bad = ImportCsv("# Format\nnot a row\nstill not\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("inline.csv: line 2: expected 'FIELD, type, help'"), std::string::npos)
      << bad.status().message();
  auto empty = ImportCsv("# only a comment\n\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("line 1: no 'FIELD, type, help' rows"), std::string::npos);
  auto binary = ImportCsv(std::string("\x01\x02\x03,\xff,\xfe\n", 8));
  EXPECT_FALSE(binary.ok());
}

// Prefixes and byte-flipped copies of a real file: each either imports with only
// well-formed declarations or fails as InvalidInput.
TEST(DcgmCountersImporterTest, CorruptedFilesImportOrFailCleanly) {
  const std::string original = testing::ReadFileOrDie(testing::DataPath(kDefault));
  size_t imported = 0;
  auto check = [&](std::string text) {
    Counters().Sniff(text.substr(0, kSniffBytes));
    auto result = ImportCsv(std::move(text));
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), StatusCode::kInvalidInput);
      return;
    }
    ++imported;
    for (const MetricDeclaration& d : (*result)[0].metric_declarations) {
      EXPECT_TRUE(d.type == "gauge" || d.type == "counter" || d.type == "label") << d.type;
      EXPECT_FALSE(d.source_name.empty());
    }
  };
  for (size_t cut = 1; cut < original.size(); cut += 41) check(original.substr(0, cut));
  uint32_t state = 777;  // fixed LCG: the same corruptions every run
  for (int round = 0; round < 200; ++round) {
    std::string text = original;
    for (int flips = 0; flips < 8; ++flips) {
      state = state * 1664525u + 1013904223u;
      text[state % text.size()] = static_cast<char>(state >> 24);
    }
    check(std::move(text));
  }
  EXPECT_GT(imported, 200u);
}

TEST(DcgmCountersImporterTest, SniffsCollectorCsvsOnly) {
  for (const char* file : {kDefault, kDcp, kOldNames}) {
    std::string text = testing::ReadFileOrDie(testing::DataPath(file));
    EXPECT_EQ(Counters().Sniff(text.substr(0, kSniffBytes)), SniffResult::kYes) << file;
    EXPECT_EQ(BuiltinImporters().Sniff(text.substr(0, kSniffBytes)), &Counters()) << file;
  }
  // Without the header comment, rows of DCGM fields still identify the format.
  EXPECT_EQ(Counters().Sniff("DCGM_FI_DEV_SM_CLOCK, gauge, SM clock\nDCGM_FI_DEV_GPU_TEMP, gauge, t\n"),
            SniffResult::kYes);
  EXPECT_EQ(Counters().Sniff("MY_FIELD, gauge, help\n"), SniffResult::kMaybe);
  EXPECT_EQ(Counters().Sniff(testing::ReadFileOrDie(
                testing::DataPath("dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom"))),
            SniffResult::kNo);
  EXPECT_EQ(Counters().Sniff("{\"schemaVersion\": 1, \"traceEvents\": []}"), SniffResult::kNo);
  EXPECT_EQ(Counters().Sniff("timestamp, name, pci.bus_id, utilization.gpu [%]\n"), SniffResult::kNo);
  EXPECT_EQ(Counters().Sniff("\"ID\",\"Process ID\",\"Process Name\"\n"), SniffResult::kNo);
  EXPECT_EQ(Counters().Sniff("Name,Profile,Memory_footprint,SM_usage,Duration\n"), SniffResult::kNo);
  EXPECT_EQ(Counters().Sniff("# HELP up x\n# TYPE up gauge\nup 1\n"), SniffResult::kNo);
}

}  // namespace
}  // namespace kraken
