// The kraken-json importer on small inline exports; the round trip of a real run
// (kraken profile --out, then kraken analyze) is in src/cli/profile_cli_test.cc.
#include <gtest/gtest.h>

#include "importers/registry.h"

namespace kraken {
namespace {

constexpr char kExport[] = R"({
  "kraken_profile_version": 1,
  "metadata": {"source": "sh -c train", "format": "kraken-profile", "hostname": "node7",
               "accelerator_vendor": "nvidia", "attributes": {"interval": "100ms"}},
  "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "vendor": "nvidia", "memory_bytes": 85520809984,
               "power_limit_w": 700, "mig_enabled": false}],
  "kernels": [{"name": "k"}, {"name": "k2"}],
  "memory_ops": [],
  "import_counters": {"nvml_passes": 3},
  "series": [
    {"metric": "process_used_memory_bytes", "unit": "B", "source_name": "nvmlDeviceGetComputeRunningProcesses",
     "entity": {"gpu_index": 0, "gpu_instance_id": -1, "pid": 4242, "process_name": "python3"},
     "samples": [[1000, 16452157440], [2000, 16452157440], ["bad", 1], [3000, 2690646016]]},
    {"unit": "%", "samples": []}
  ]
})";

TEST(KrakenJsonImporterTest, ReadsMetadataDevicesAndSeriesAndCountsWhatItSkips) {
  auto profiles = ImportBuffer(BuiltinImporters(), "run.json", kExport);
  ASSERT_TRUE(profiles.ok()) << profiles.status().message();
  ASSERT_EQ(profiles->size(), 1u);
  const Profile& p = (*profiles)[0];
  EXPECT_EQ(p.metadata.format, "kraken-profile");
  EXPECT_EQ(p.metadata.source, "sh -c train");
  EXPECT_EQ(p.metadata.hostname, "node7");
  EXPECT_EQ(p.metadata.accelerator_vendor, Vendor::kNvidia);
  EXPECT_EQ(p.metadata.attributes.at("interval"), "100ms");
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].memory_bytes, 85520809984);
  EXPECT_EQ(p.devices[0].power_limit_w, 700);
  ASSERT_EQ(p.series.size(), 1u);
  const Series& s = p.series[0];
  EXPECT_EQ(s.metric, Metric::kProcessUsedMemoryBytes);
  EXPECT_EQ(s.entity.pid, 4242);
  EXPECT_EQ(s.entity.process_name, "python3");
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_EQ(s.samples[2].time_ns, 3000);
  EXPECT_EQ(s.samples[2].value, 2690646016);
  EXPECT_EQ(p.import_counters.at("nvml_passes"), 3);
  EXPECT_EQ(p.import_counters.at("kraken_json_skipped_kernels"), 2);
  EXPECT_EQ(p.import_counters.count("kraken_json_skipped_memory_ops"), 0u);  // empty: nothing lost
  EXPECT_EQ(p.import_counters.at("kraken_json_unreadable_series"), 1);  // no metric
  EXPECT_EQ(p.import_counters.at("kraken_json_unreadable_samples"), 1);
}

TEST(KrakenJsonImporterTest, SniffsOnlyItsOwnSignatureAndRejectsOtherVersions) {
  auto other = ImportBuffer(BuiltinImporters(), "v2.json", R"({"kraken_profile_version": 2, "series": []})");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("only version 1 is known"), std::string::npos) << other.status().message();
  // The version key must come first: a trace that mentions it later is not an export.
  auto trace = ImportBuffer(BuiltinImporters(), "t.json", R"({"traceEvents": [], "kraken_profile_version": 1})");
  if (trace.ok()) {
    for (const Profile& p : *trace) EXPECT_NE(p.metadata.format, "kraken-json");
  }
}

}  // namespace
}  // namespace kraken
