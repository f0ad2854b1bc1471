// The kraken-json importer: kraken's export of real imports reads back equal to the
// profile exported, field for field, and exports again byte for byte; damaged records are
// counted and skipped; a file that is not an export (or a version this kraken does not
// know, or a cut one) is refused with its name and the byte where reading stopped. The
// round trip of a real `kraken profile --out` run is in src/cli/profile_cli_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "base/json_writer.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "model/profile_equality_testing.h"
#include "report/profile_export.h"

namespace kraken {
namespace {

std::string KrakenJsonExportOf(const Profile& profile) {
  JsonWriter json;
  WriteProfileJson(profile, json);
  return json.Take();
}

// The one profile of an inline export, read through the sniffer as a file would be.
Profile KrakenJsonImportText(const std::string& text) {
  auto profiles = ImportBuffer(BuiltinImporters(), "inline.json", text);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (!profiles.ok() || profiles->size() != 1) return Profile();
  return std::move((*profiles)[0]);
}

std::string KrakenJsonImportError(const std::string& name, const std::string& text) {
  ImportOptions forced;
  forced.forced_format = "kraken-json";  // also for texts the sniffer would give to no importer
  auto profiles = ImportBuffer(BuiltinImporters(), name, text, forced);
  EXPECT_FALSE(profiles.ok()) << name << " was read";
  return profiles.ok() ? "" : profiles.status().message();
}

int64_t KrakenJsonCounter(const Profile& p, const std::string& name) {
  auto it = p.import_counters.find(name);
  return it == p.import_counters.end() ? 0 : it->second;
}

// A real file, and the section it is here for (so the test fails when it stops holding one).
struct KrakenJsonRealCase {
  const char* file;
  const char* section;
  std::function<size_t(const Profile&)> count;
};
std::ostream& operator<<(std::ostream& os, const KrakenJsonRealCase& c) { return os << c.file; }

class KrakenJsonRoundTripTest : public ::testing::TestWithParam<KrakenJsonRealCase> {};

TEST_P(KrakenJsonRoundTripTest, ExportReadsBackEqualAndExportsAgainByteForByte) {
  const KrakenJsonRealCase& c = GetParam();
  auto originals = ImportFile(BuiltinImporters(), testing::DataPath(c.file));
  ASSERT_TRUE(originals.ok()) << originals.status().message();
  ASSERT_EQ(originals->size(), 1u);
  const Profile& original = (*originals)[0];
  EXPECT_GT(c.count(original), 0u) << c.file << " no longer holds " << c.section;

  std::string exported = KrakenJsonExportOf(original);
  const Importer* sniffed = BuiltinImporters().Sniff(exported.substr(0, 4096));
  ASSERT_NE(sniffed, nullptr);
  EXPECT_EQ(sniffed->descriptor().name, "kraken-json");
  Profile read_back = KrakenJsonImportText(exported);
  testing::ExpectProfilesEqual(original, read_back);
  std::string again = KrakenJsonExportOf(read_back);
  EXPECT_EQ(again.size(), exported.size());
  EXPECT_TRUE(again == exported) << "the re-export differs from byte "
                                 << std::mismatch(again.begin(), again.end(), exported.begin(), exported.end())
                                            .first -
                                        again.begin();
}

INSTANTIATE_TEST_SUITE_P(
    RealFiles, KrakenJsonRoundTripTest,
    ::testing::Values(
        KrakenJsonRealCase{"kineto/hta/trace_filter/sampled_rank-0.json.gz", "steps and kernels",
                           [](const Profile& p) { return std::min(p.steps.size(), p.kernels.size()); }},
        KrakenJsonRealCase{"kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz", "syncs",
                           [](const Profile& p) { return p.syncs.size(); }},
        KrakenJsonRealCase{"kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "memory ops",
                           [](const Profile& p) { return p.memory_ops.size(); }},
        KrakenJsonRealCase{"kineto/hta/nccl_parser_config/nccl_data.json.gz", "collectives",
                           [](const Profile& p) { return p.collectives.size(); }},
        KrakenJsonRealCase{"kineto/hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz",
                           "profiler ranges", [](const Profile& p) { return p.profiler_ranges.size(); }},
        KrakenJsonRealCase{"ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv", "kernel counters",
                           [](const Profile& p) { return p.kernel_counters.size(); }},
        KrakenJsonRealCase{"ncu/rtx5090-cc12.0_llm-perf-opt_classification_summary.csv", "kernel labels",
                           [](const Profile& p) { return p.kernel_labels.size(); }},
        KrakenJsonRealCase{"nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt",
                           "series and MIG instances",
                           [](const Profile& p) {
                             return p.devices.empty() ? 0 : std::min(p.series.size(), p.devices[0].mig_instances.size());
                           }},
        KrakenJsonRealCase{"dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt",
                           "metric declarations", [](const Profile& p) { return p.metric_declarations.size(); }},
        KrakenJsonRealCase{"alibaba-pai-gpu-v2020/mini-batch-time/job_1_norm.csv.gz", "iteration-axis series",
                           [](const Profile& p) {
                             return p.series.empty() || p.series[0].axis != SampleAxis::kIteration ? 0 : 1;
                           }},
        KrakenJsonRealCase{"orion/resnet50_4_fwd.csv", "kernels without timestamps",
                           [](const Profile& p) { return p.metadata.kernel_timestamps_valid ? 0 : p.kernels.size(); }}));

// The fuzzer's seed (fuzz/seeds) holds one record of every section, with the values the
// real files above leave out (MIG pending, PCIe generation, raw range counters, labels).
TEST(KrakenJsonImporterTest, ReadsEverySectionOfTheFuzzSeedAndWritesItAgain) {
  std::string seed = testing::ReadFileOrDie(testing::SourceDir() + "/fuzz/seeds/kraken_export_every_section.json");
  Profile p = KrakenJsonImportText(seed);
  EXPECT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.memory_ops.size(), 1u);
  EXPECT_EQ(p.cpu_ops.size(), 1u);
  EXPECT_EQ(p.runtime_calls.size(), 1u);
  EXPECT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.syncs.size(), 1u);
  EXPECT_EQ(p.kernel_counters.size(), 1u);
  EXPECT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.profiler_ranges.size(), 1u);
  EXPECT_EQ(p.metric_declarations.size(), 1u);
  EXPECT_EQ(p.kernel_labels.size(), 1u);
  ASSERT_EQ(p.series.size(), 2u);
  EXPECT_EQ(p.series[1].axis, SampleAxis::kIteration);
  EXPECT_EQ(p.import_counters, (std::map<std::string, int64_t>{{"kineto_unknown_category", 1}}));
  JsonWriter compact(/*pretty=*/false);
  WriteProfileJson(p, compact);
  EXPECT_EQ(compact.str() + "\n", seed);
}

// A record of each kind with something wrong with it, beside good ones.
constexpr char kKrakenJsonDamaged[] = R"({
  "kraken_profile_version": 1,
  "metadata": {"source": "sh -c train", "format": "kraken-profile", "hostname": "node7",
               "accelerator_vendor": "nvidia", "attributes": {"interval": "100ms"}},
  "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "vendor": "nvidia", "memory_bytes": 85520809984,
               "power_limit_w": 700, "pcie_generation": null, "mig_enabled": false},
              {"index": "zero"}],
  "kernels": [
    {"name": "good", "start_ns": 10, "duration_ns": 5, "counters_index": 1, "collective_index": 0,
     "grid": [4, 1, 1], "a_later_key": {"ignored": [1, 2]}},
    {"name": 7, "start_ns": 20, "duration_ns": 5},
    {"name": "no start", "duration_ns": 5},
    {"name": "damaged", "start_ns": tru},
    {"name": "grid of two", "start_ns": 20, "duration_ns": 5, "grid": [1, 1]},
    {"name": "dangling", "start_ns": 30, "duration_ns": 5, "counters_index": 0, "blocks_per_sm": null}
  ],
  "memory_ops": [{"name": "m", "start_ns": 1, "duration_ns": 1, "kind": "memteleport"}],
  "cpu_ops": 5,
  "steps": [{"step_number": 3, "start_ns": 0, "duration_ns": 100, "tid": 12},
            {"step_number": "x", "start_ns": 0, "duration_ns": 1}],
  "kernel_counters": [{"fp32_flops": "many"}, {"fp32_flops": 1e9, "dram_bytes": null}],
  "collectives": [{"collective_name": "allreduce", "group_size": 8}],
  "a_later_section": [1, 2, 3],
  "import_counters": {"kineto_unknown_category": 2},
  "series": [
    {"metric": "process_used_memory_bytes", "unit": "B", "source_name": "nvmlDeviceGetComputeRunningProcesses",
     "axis": "time_ns", "entity": {"gpu_index": 0, "gpu_instance_id": -1, "pid": 4242, "process_name": "python3"},
     "samples": [[1000, 16452157440], [2000, null], ["bad", 1], [3000], [4000, 2690646016]]},
    {"unit": "%", "samples": []},
    {"metric": "gpu_utilization_pct", "axis": "sideways", "samples": []}
  ]
})";

TEST(KrakenJsonImporterTest, CountsAndSkipsUnreadableRecordsAndKeepsTheRest) {
  Profile p = KrakenJsonImportText(kKrakenJsonDamaged);
  EXPECT_EQ(p.metadata.format, "kraken-profile");  // as exported, not the importer's name
  EXPECT_EQ(p.metadata.source, "sh -c train");
  EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kNvidia);
  EXPECT_EQ(p.metadata.attributes, (std::map<std::string, std::string>{{"interval", "100ms"}}));
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].memory_bytes, 85520809984);
  EXPECT_EQ(p.devices[0].power_limit_w, 700);
  EXPECT_FALSE(p.devices[0].pcie_generation.has_value());
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_devices"), 1);

  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.Name(p.kernels[0].name), "good");
  EXPECT_EQ(p.kernels[0].grid, (Dim3{4, 1, 1}));
  EXPECT_EQ(p.Name(p.kernels[1].name), "dangling");
  EXPECT_TRUE(std::isnan(p.kernels[1].blocks_per_sm));  // the exporter's null for NaN
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_kernels"), 4);
  // Indexes follow the records read: counters 1 of the file is counters 0 of the profile.
  ASSERT_EQ(p.kernel_counters.size(), 1u);
  EXPECT_EQ(p.kernel_counters[0].fp32_flops, 1e9);
  EXPECT_TRUE(p.kernel_counters[0].dram_bytes.has_value() && std::isnan(*p.kernel_counters[0].dram_bytes));
  EXPECT_EQ(p.kernels[0].counters_index, 0);
  EXPECT_EQ(p.kernels[0].collective_index, 0);
  EXPECT_EQ(p.kernels[1].counters_index, -1);
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_dangling_counters_index"), 1);
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_kernel_counters"), 1);

  EXPECT_TRUE(p.memory_ops.empty());
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_memory_ops"), 1);
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_cpu_ops"), 1);  // not an array
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].step_number, 3);
  EXPECT_EQ(p.steps[0].tid, 12);
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_steps"), 1);
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_skipped_a_later_section"), 1);
  EXPECT_EQ(KrakenJsonCounter(p, "kineto_unknown_category"), 2);

  ASSERT_EQ(p.series.size(), 1u);
  const Series& s = p.series[0];
  EXPECT_EQ(s.metric, Metric::kProcessUsedMemoryBytes);
  EXPECT_EQ(s.entity.pid, 4242);
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_TRUE(std::isnan(s.samples[1].value));
  EXPECT_EQ(s.samples[2].time_ns, 4000);
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_series"), 2);  // no metric; unknown axis
  EXPECT_EQ(KrakenJsonCounter(p, "kraken_json_unreadable_samples"), 2);
}

TEST(KrakenJsonImporterTest, RefusesVersionsItDoesNotKnow) {
  std::string newer = KrakenJsonImportError("v2.json", R"({"kraken_profile_version": 2, "series": []})");
  EXPECT_EQ(newer.rfind("v2.json", 0), 0u) << newer;
  EXPECT_NE(newer.find("byte 28"), std::string::npos) << newer;
  EXPECT_NE(newer.find("newer than this kraken reads"), std::string::npos) << newer;
  for (const char* version : {"0", "-1", "\"1\"", "1.5", "null"}) {
    std::string text = std::string(R"({"kraken_profile_version": )") + version + "}";
    std::string message = KrakenJsonImportError("bad-version.json", text);
    EXPECT_NE(message.find("must be a positive integer"), std::string::npos) << version << ": " << message;
  }
  // The version key must come first: a trace that mentions it later is not an export.
  EXPECT_EQ(BuiltinImporters().Sniff(R"({"traceEvents": [], "kraken_profile_version": 1})"),
            BuiltinImporters().FindByName("kineto"));
}

TEST(KrakenJsonImporterTest, RefusesTruncatedFilesWithTheBytePosition) {
  auto originals = ImportFile(BuiltinImporters(),
                              testing::DataPath("kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz"));
  ASSERT_TRUE(originals.ok()) << originals.status().message();
  std::string exported = KrakenJsonExportOf((*originals)[0]);
  for (size_t cut : {exported.size() / 3, exported.size() / 2, exported.size() - 2}) {
    std::string message = KrakenJsonImportError("cut.json", exported.substr(0, cut));
    EXPECT_EQ(message.rfind("cut.json: byte ", 0), 0u) << message;
    EXPECT_NE(message.find("truncated file"), std::string::npos) << message;
    EXPECT_LE(std::stoull(message.substr(std::string("cut.json: byte ").size())), cut) << message;
  }
}

TEST(KrakenJsonImporterTest, RefusesWhatIsNotAnExportWithTheBytePosition) {
  struct Bad {
    const char* text;
    const char* says;
  } const bad[] = {
      {R"({"traceEvents": []})", "byte 0: not a kraken profile export"},
      {R"({"kernels": [{}], "kraken_profile_version": 1})", "byte 0: not a kraken profile export"},
      {R"([{"name": "k"}])", "byte 0: not a kraken profile export"},
      {R"({})", "byte 0: not a kraken profile export"},
      {R"({"kraken_profile_version": 1, "kernels": [{"name": "k"} {"name": "k2"}]})",
       "byte 56: expected ',' or ']'"},
      {R"({"kraken_profile_version": 1 "kernels": []})", "byte 29: expected ',' or '}'"},
      {R"({"kraken_profile_version": 1, "kernels": []} trailing)", "unexpected data after the end"},
  };
  for (const Bad& b : bad) {
    std::string message = KrakenJsonImportError("not-an-export.json", b.text);
    EXPECT_EQ(message.rfind("not-an-export.json: ", 0), 0u) << message;
    EXPECT_NE(message.find(b.says), std::string::npos) << b.text << " -> " << message;
  }
}

}  // namespace
}  // namespace kraken

namespace kraken {
namespace {

// One clock per profile (model/time_base.h): an export whose utilization is on the epoch
// clock and whose power counts from 0 is refused whole, naming both series, rather than
// stored as a 56-year axis.
TEST(KrakenJsonImporterTest, RefusesAProfileThatMixesEpochAndRelativeClocks) {
  std::string message = KrakenJsonImportError("mixed.json", R"({"kraken_profile_version": 1,
  "series": [
    {"metric": "gpu_util_pct", "source_name": "utilization.gpu", "axis": "time_ns", "entity": {"gpu_index": 0},
     "samples": [[1784016758696000000, 100]]},
    {"metric": "power_w", "source_name": "pwr", "axis": "time_ns", "entity": {"gpu_index": 0},
     "samples": [[0, 631], [1000000000, 634]]}
  ]})");
  EXPECT_EQ(message.rfind("mixed.json: mixed time bases: ", 0), 0u) << message;
  EXPECT_NE(message.find("'utilization.gpu' of gpu 0"), std::string::npos) << message;
  EXPECT_NE(message.find("'pwr' of gpu 0"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace
}  // namespace kraken
