// Golden tests of the Helios sequence importer on the real files of shared/data/helios.
// Every expected number was read from the files with Python's csv module (timestamps via
// calendar.timegm, i.e. the file's clock read as UTC).
#include <gtest/gtest.h>

#include <numeric>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

constexpr int64_t kNs = 1'000'000'000;

Profile ImportOne(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok() || result->size() != 1) return Profile();
  return std::move(result->front());
}

const Series* Find(const Profile& p, std::string_view source_name) {
  for (const Series& s : p.series)
    if (s.source_name == source_name) return &s;
  return nullptr;
}

const Series* FindVc(const Profile& p, std::string_view vc) {
  for (const Series& s : p.series) {
    auto it = s.entity.labels.find("vc");
    if (it != s.entity.labels.end() && it->second == vc) return &s;
  }
  return nullptr;
}

double Sum(const Series& s) {
  return std::accumulate(s.samples.begin(), s.samples.end(), 0.0,
                         [](double acc, const Sample& x) { return acc + x.value; });
}

TEST(HeliosImporter, PhillyNodeSequencePerMinute) {
  Profile p = ImportOne("helios/philly_node_sequence.csv.gz");
  EXPECT_EQ(p.metadata.format, "helios-sequence");
  ASSERT_EQ(p.series.size(), 2u);
  EXPECT_EQ(p.import_counters.at("helios_rows"), 105644);
  EXPECT_EQ(p.import_counters.count("helios_bad_rows"), 0u);
  const Series* active = Find(p, "active");
  ASSERT_NE(active, nullptr);
  EXPECT_EQ(active->metric, Metric::kOther);
  EXPECT_EQ(active->axis, SampleAxis::kTimeNs);
  EXPECT_EQ(active->entity.labels.at("unit"), "servers");
  EXPECT_EQ(active->entity.labels.at("sequence"), "philly_node_sequence");
  ASSERT_EQ(active->samples.size(), 105644u);
  EXPECT_EQ(active->samples.front().time_ns, 1506988800 * kNs);  // 2017-10-03 00:00:00
  EXPECT_EQ(active->samples.front().value, 312);
  EXPECT_EQ(active->samples.back().time_ns, 1513363320 * kNs);  // 2017-12-15 18:42:00
  EXPECT_EQ(active->samples.back().value, 186);
  EXPECT_EQ(Sum(*active), 33065327);
  const Series* total = Find(p, "total");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->samples.front().value, 420);
}

TEST(HeliosImporter, EarthVirtualClusterSequence) {
  Profile p = ImportOne("helios/earth_vc_sequences/vc3sl_cluster_sequence_vc.csv.gz");
  ASSERT_EQ(p.series.size(), 23u);  // every column but time
  EXPECT_EQ(p.import_counters.at("helios_rows"), 44640);
  const Series* running = Find(p, "running_gpu_num");
  ASSERT_NE(running, nullptr);
  EXPECT_EQ(running->entity.labels.at("vc"), "vc3sl");
  EXPECT_EQ(running->entity.labels.at("unit"), "GPUs");
  ASSERT_EQ(running->samples.size(), 44640u);
  EXPECT_EQ(running->samples.front().time_ns, 1588291200 * kNs);  // 2020-05-01 00:00:00
  EXPECT_EQ(running->samples.back().time_ns, 1590969540 * kNs);   // 2020-05-31 23:59:00
  EXPECT_EQ(running->samples.back().value, 15);
  EXPECT_EQ(Sum(*running), 1792147);
  const Series* ratio = Find(p, "gpu_utilization");
  ASSERT_NE(ratio, nullptr);
  EXPECT_EQ(ratio->metric, Metric::kOther);  // an allocation ratio, not NVML utilization
  EXPECT_EQ(ratio->entity.labels.at("unit"), "ratio");
  EXPECT_DOUBLE_EQ(ratio->samples.front().value, 0.922);
  EXPECT_DOUBLE_EQ(ratio->samples.back().value, 0.234);
  EXPECT_EQ(Find(p, "pending_job_num")->entity.labels.at("unit"), "jobs");

  Profile hbv = ImportOne("helios/earth_vc_sequences/vchbv_cluster_sequence_vc.csv.gz");
  const Series* hbv_running = Find(hbv, "running_gpu_num");
  ASSERT_NE(hbv_running, nullptr);
  EXPECT_EQ(Sum(*hbv_running), 1174384);
}

TEST(HeliosImporter, DailyGpusPerVirtualCluster) {
  Profile p = ImportOne("helios/earth_vc_sequences/Earth_gpu_number.csv");
  ASSERT_EQ(p.series.size(), 26u);  // 25 virtual clusters + total
  EXPECT_EQ(p.import_counters.at("helios_rows"), 181);
  const Series* vc3sl = FindVc(p, "vc3sl");
  ASSERT_NE(vc3sl, nullptr);
  EXPECT_EQ(vc3sl->source_name, "gpu_num");
  ASSERT_EQ(vc3sl->samples.size(), 181u);
  EXPECT_EQ(vc3sl->samples.front().time_ns, 1585699200 * kNs);  // 2020-04-01
  EXPECT_EQ(vc3sl->samples.front().value, 0);
  EXPECT_EQ(vc3sl->samples.back().value, 64);
  const Series* total = FindVc(p, "all");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->samples.back().value, 1208);
}

TEST(HeliosImporter, ClusterSummaryIsNotASeries) {
  // One row per cluster: no importer claims it.
  auto result = ImportFile(BuiltinImporters(), testing::DataPath("helios/helios_cluster_summary.csv"));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("not a format kraken reads"), std::string::npos);
}

TEST(HeliosImporter, BadRowsAreCountedAndOrderIsRestored) {
  std::string text =
      "time,active,total\n"
      "2017-10-03 00:02:00,3,420\n"
      "2017-10-03 00:00:00,1,420\n"
      "2017-10-03 00:01:00,x,420\n"
      "2017-13-03 00:01:00,2,420\n"
      "2017-10-03,2,420\n"
      "2017-10-03 00:03:00,4\n";
  auto result = ImportBuffer(BuiltinImporters(), "philly.csv", text);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Profile& p = result->front();
  EXPECT_EQ(p.import_counters.at("helios_rows"), 3);
  EXPECT_EQ(p.import_counters.at("helios_bad_rows"), 3);  // bad month, date only, short row
  EXPECT_EQ(p.import_counters.at("helios_unparsable_values"), 1);
  EXPECT_EQ(p.import_counters.at("helios_out_of_order_rows"), 1);
  const Series& active = p.series[0];
  ASSERT_EQ(active.samples.size(), 2u);
  EXPECT_EQ(active.samples[0].value, 1);
  EXPECT_EQ(active.samples[1].value, 3);
  EXPECT_EQ(p.series[1].samples.size(), 3u);
}

TEST(HeliosImporter, TruncatedLastRowIsAnError) {
  auto result = ImportBuffer(BuiltinImporters(), "philly.csv", "time,active,total\n2017-10-03 00:00:00,1,420\n2017-10-0");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("philly.csv: line 3: file ends inside a row"), std::string::npos)
      << result.status().message();
}

}  // namespace
}  // namespace kraken
