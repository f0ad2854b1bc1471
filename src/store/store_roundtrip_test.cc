// SaveProfile then LoadProfile gives back the same profile, field for field, for every
// importer's real output.
#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "model/profile_equality_testing.h"
#include "store/pg/store_backend_testing.h"
#include "store/store.h"

namespace kraken {
namespace {

struct RoundTripCase {
  const char* file;
  // What the importer read (and the store must keep): totals over the file's profiles.
  size_t profiles, devices, kernels, memory_ops, cpu_ops, runtime_calls, syncs, counters, collectives, ranges,
      series, samples, declarations, labels;
};

std::ostream& operator<<(std::ostream& os, const RoundTripCase& c) { return os << c.file; }

using store::testing::StoreBackend;

class StoreRoundTripTest : public ::testing::TestWithParam<std::tuple<RoundTripCase, StoreBackend>> {};

std::string RoundTripTestName(const ::testing::TestParamInfo<std::tuple<RoundTripCase, StoreBackend>>& info) {
  return std::to_string(info.index / 2) + "_" + store::testing::StoreBackendName(std::get<1>(info.param));
}

TEST_P(StoreRoundTripTest, SavedProfileLoadsBackEqual) {
  const RoundTripCase& c = std::get<0>(GetParam());
  StoreBackend backend = std::get<1>(GetParam());
  Status ready = store::testing::EnsureStoreBackend(backend);
  ASSERT_TRUE(ready.ok()) << ready.message();
  auto imported = ImportFile(BuiltinImporters(), testing::DataPath(c.file));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  auto store = ProfileStore::Open(store::testing::NewStoreLocation(backend, "store_roundtrip"));
  ASSERT_TRUE(store.ok()) << store.status().message();

  RoundTripCase seen{c.file, imported->size(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (const Profile& original : *imported) {
    seen.devices += original.devices.size();
    seen.kernels += original.kernels.size();
    seen.memory_ops += original.memory_ops.size();
    seen.cpu_ops += original.cpu_ops.size();
    seen.runtime_calls += original.runtime_calls.size();
    seen.syncs += original.syncs.size();
    seen.counters += original.kernel_counters.size();
    seen.collectives += original.collectives.size();
    seen.ranges += original.profiler_ranges.size();
    seen.series += original.series.size();
    for (const Series& s : original.series) seen.samples += s.samples.size();
    seen.declarations += original.metric_declarations.size();
    seen.labels += original.kernel_labels.size();

    auto id = (*store)->SaveProfile(original);
    ASSERT_TRUE(id.ok()) << id.status().message();
    auto loaded = (*store)->LoadProfile(*id);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    testing::ExpectProfilesEqual(original, *loaded);
    testing::ExpectSameStringTable(original, *loaded);

    auto info = (*store)->GetProfileInfo(*id);
    ASSERT_TRUE(info.ok()) << info.status().message();
    EXPECT_EQ(info->kind, "import");
    EXPECT_EQ(info->format, original.metadata.format);
    EXPECT_EQ(info->kernels, static_cast<int64_t>(original.kernels.size()));
    EXPECT_EQ(info->device_names.size(), original.devices.size());
  }
  EXPECT_EQ(seen.profiles, c.profiles);
  EXPECT_EQ(seen.devices, c.devices);
  EXPECT_EQ(seen.kernels, c.kernels);
  EXPECT_EQ(seen.memory_ops, c.memory_ops);
  EXPECT_EQ(seen.cpu_ops, c.cpu_ops);
  EXPECT_EQ(seen.runtime_calls, c.runtime_calls);
  EXPECT_EQ(seen.syncs, c.syncs);
  EXPECT_EQ(seen.counters, c.counters);
  EXPECT_EQ(seen.collectives, c.collectives);
  EXPECT_EQ(seen.ranges, c.ranges);
  EXPECT_EQ(seen.series, c.series);
  EXPECT_EQ(seen.samples, c.samples);
  EXPECT_EQ(seen.declarations, c.declarations);
  EXPECT_EQ(seen.labels, c.labels);
  auto listed = (*store)->ListProfiles();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), c.profiles);
}

// file, profiles, devices, kernels, memory ops, cpu ops, runtime calls, syncs, kernel
// counters, collectives, profiler ranges, series, samples, metric declarations, labels
INSTANTIATE_TEST_SUITE_P(
    RealFiles, StoreRoundTripTest,
    ::testing::Combine(::testing::Values(
        RoundTripCase{"kineto/hta/nccl_parser_config/nccl_data.json.gz",
                      1, 8, 2700, 1074, 14418, 8740, 0, 0, 21, 0, 0, 0, 0, 0},
        RoundTripCase{"kineto/hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz",
                      1, 8, 0, 0, 383, 1862, 0, 77, 0, 77, 0, 0, 0, 0},
        RoundTripCase{"kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
                      1, 8, 4, 1, 11, 12, 4, 0, 0, 0, 0, 0, 0, 0},
        RoundTripCase{"kineto/param/dlrm_kineto.tar.gz",
                      8, 64, 2104, 140, 13384, 4153, 0, 0, 0, 0, 0, 0, 0, 0},
        RoundTripCase{"ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv",
                      1, 1, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0},
        RoundTripCase{"ncu/rtx5090-cc12.0_llm-perf-opt_classification_summary.csv",
                      1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20},
        RoundTripCase{"nvidia-smi/capture__linux-x86_64__nvidia-h100-mig__590.48.01.txt",
                      1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 164, 204, 0, 0},
        // 12 of the series: remapped rows (4 metrics from -q, pending/failure from the query
        // CSV's "No", per phase); the CSV's two counts were "other" series before.
        RoundTripCase{"nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt",
                      1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 214, 310, 0, 0},
        RoundTripCase{"dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom",
                      1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 21, 21, 0, 0},
        RoundTripCase{"dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt",
                      1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 38, 38, 38, 0},
        RoundTripCase{"dcgm/dcgm-exporter_etc_default-counters.csv",
                      1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 26, 0},
        RoundTripCase{"orion/resnet50_4_fwd.csv",
                      1, 0, 175, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 175}),
                       store::testing::AllStoreBackends()),
    RoundTripTestName);

}  // namespace
}  // namespace kraken
