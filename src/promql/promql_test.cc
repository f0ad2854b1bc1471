// Unit tests of the Prometheus input's pure parts: durations, the paging plan, the
// query_range answer, label spellings and merging windows into pod profiles. The end-to-end
// test against a real Prometheus is src/cli/prometheus_cluster_test.cc.
#include <gtest/gtest.h>

#include "importers/prometheus/dcgm_entity.h"
#include "promql/cluster_query.h"
#include "promql/pod_profiles.h"
#include "promql/prometheus_client.h"
#include "promql/query_plan.h"

namespace kraken::promql {
namespace {

TEST(PromDurationTest, ParsesUnitsAndCombinations) {
  EXPECT_EQ(*ParsePromDurationSeconds("7d"), 604800);
  EXPECT_EQ(*ParsePromDurationSeconds("1h30m"), 5400);
  EXPECT_EQ(*ParsePromDurationSeconds("90s"), 90);
  EXPECT_EQ(*ParsePromDurationSeconds("2w"), 1209600);
  EXPECT_EQ(*ParsePromDurationSeconds("2000ms"), 2);
  EXPECT_FALSE(ParsePromDurationSeconds("").ok());
  EXPECT_FALSE(ParsePromDurationSeconds("1500ms").ok());  // not whole seconds
  EXPECT_FALSE(ParsePromDurationSeconds("5x").ok());
  EXPECT_FALSE(ParsePromDurationSeconds("d").ok());
  EXPECT_FALSE(ParsePromDurationSeconds("99999999999999999999y").ok());
}

TEST(QueryPlanTest, WeekAtThirtySecondsIsPagedIntoThreeWindows) {
  const int64_t end = 1'700'000'000;
  auto plan = PlanRangeQuery(end, 604800, 30);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->step_s, 30);
  EXPECT_EQ(plan->total_points, 20161);  // 604800 / 30 + 1 instants, both ends included
  ASSERT_EQ(plan->windows.size(), 3u);
  EXPECT_EQ(plan->windows[0].start_s, end - 604800);
  EXPECT_EQ(plan->windows[0].end_s, end - 604800 + 9999 * 30);
  EXPECT_EQ(plan->windows[1].start_s, plan->windows[0].end_s + 30);  // no instant asked twice
  EXPECT_EQ(plan->windows[2].points, 161);
  EXPECT_EQ(plan->windows[2].end_s, end);
  for (const QueryWindow& w : plan->windows) EXPECT_LE((w.end_s - w.start_s) / 30 + 1, kServerMaxPointsPerSeries);
}

TEST(QueryPlanTest, AutoStepIsAMinuteAndGrowsForLongRanges) {
  auto week = PlanRangeQuery(1'700'000'000, 604800, 0);
  ASSERT_TRUE(week.ok());
  EXPECT_EQ(week->step_s, 60);
  EXPECT_EQ(week->total_points, 10081);
  EXPECT_EQ(week->windows.size(), 2u);
  auto year = PlanRangeQuery(1'700'000'000, 365 * 86400, 0);
  ASSERT_TRUE(year.ok());
  EXPECT_EQ(year->step_s, 60);
  auto two_years = PlanRangeQuery(1'700'000'000, 2 * 365 * 86400, 0);
  ASSERT_TRUE(two_years.ok());
  EXPECT_EQ(two_years->step_s, 106);  // ceil(63,072,000 / 600,000)
  EXPECT_LE(two_years->windows.size(), static_cast<size_t>(kAutoMaxWindows));
  EXPECT_FALSE(PlanRangeQuery(0, 60, 120).ok());
  EXPECT_FALSE(PlanRangeQuery(0, 0, 0).ok());
  EXPECT_FALSE(PlanRangeQuery(0, 600, 60, 11'001).ok());
}

TEST(RangeResponseTest, ReadsMatrixLabelsTimesAndValueText) {
  auto series = ParseRangeResponse(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                                   R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0","exported_pod":"a\"b"},)"
                                   R"("values":[[1700000000,"12"],[1700000060.5,"NaN"]]}]}})");
  ASSERT_TRUE(series.ok()) << series.status().message();
  ASSERT_EQ(series->size(), 1u);
  const RangeSeries& s = (*series)[0];
  ASSERT_EQ(s.labels.size(), 3u);
  EXPECT_EQ(s.labels[2].second, "a\"b");
  ASSERT_EQ(s.times_ms.size(), 2u);
  EXPECT_EQ(s.times_ms[1], 1'700'000'060'500);
  EXPECT_EQ(s.values[0], "12");
  EXPECT_EQ(s.values[1], "NaN");
}

TEST(RangeResponseTest, ServerErrorsAndWrongShapesAreInvalidInput) {
  auto error = ParseRangeResponse(
      R"j({"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"})j");
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.status().message().find("bad_data: exceeded maximum resolution"), std::string::npos);
  EXPECT_FALSE(ParseRangeResponse(R"({"status":"success","data":{"resultType":"vector","result":[]}})").ok());
  EXPECT_FALSE(ParseRangeResponse("not json").ok());
  EXPECT_FALSE(ParseRangeResponse(R"({"status":"success"})").ok());
  EXPECT_FALSE(
      ParseRangeResponse(R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1]]}]}})").ok());
}

TEST(ServerUrlTest, SplitsHostAndPrefix) {
  auto a = ParseServerUrl("http://127.0.0.1:9090/prometheus/");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->scheme_host_port, "http://127.0.0.1:9090");
  EXPECT_EQ(a->path_prefix, "/prometheus");
  EXPECT_EQ(ParseServerUrl("https://prom:9090")->scheme_host_port, "https://prom:9090");
  EXPECT_FALSE(ParseServerUrl("prom:9090").ok());
  EXPECT_FALSE(ParseServerUrl("http:///x").ok());
}

TEST(DcgmLabelsTest, ExportedSpellingWinsOverTheScrapeTargetsLabels) {
  auto labels = NormalizeDcgmLabels({{"__name__", "DCGM_FI_DEV_GPU_UTIL"},
                                     {"pod", "dcgm-exporter-x7k2p"},
                                     {"namespace", "gpu-operator"},
                                     {"exported_pod", "trainer-0"},
                                     {"exported_namespace", "ml"},
                                     {"instance", "10.0.3.7:9400"}});
  SeriesEntity e = prometheus::EntityFromLabels(labels);
  EXPECT_EQ(e.pod, "trainer-0");
  EXPECT_EQ(e.namespace_name, "ml");
  EXPECT_EQ(e.labels.at("scrape_pod"), "dcgm-exporter-x7k2p");
  EXPECT_EQ(e.hostname, "10.0.3.7");  // no Hostname label: the exporter's address
  auto old = NormalizeDcgmLabels({{"pod_name", "nb"}, {"pod_namespace", "ml"}, {"Hostname", "n1"}});
  SeriesEntity o = prometheus::EntityFromLabels(old);
  EXPECT_EQ(o.pod, "nb");
  EXPECT_EQ(o.namespace_name, "ml");
  EXPECT_EQ(o.hostname, "n1");
}

TEST(DcgmQueryTest, CoversEveryLabelSpellingAndRefusesInjection) {
  auto q = BuildDcgmQuery("ml", "trainer-0");
  ASSERT_TRUE(q.ok());
  EXPECT_NE(q->find(R"(namespace="ml",pod="trainer-0"})"), std::string::npos);
  EXPECT_NE(q->find(R"(exported_namespace="ml",exported_pod="trainer-0"})"), std::string::npos);
  EXPECT_NE(q->find(R"(pod_namespace="ml",pod_name="trainer-0"})"), std::string::npos);
  EXPECT_NE(q->find("DCGM_FI_DEV_GPU_UTIL|"), std::string::npos);
  EXPECT_NE(q->find("dcgm_gpu_utilization"), std::string::npos);
  EXPECT_FALSE(BuildDcgmQuery("ml\"} or up{", "").ok());
  EXPECT_FALSE(BuildDcgmQuery("", "").ok());
}

TEST(PodProfilesTest, MergesWindowsDropsBlanksAndGroupsByPod) {
  RangeSeries w1{
      {{"__name__", "DCGM_FI_DEV_FB_USED"}, {"UUID", "GPU-1"}, {"gpu", "0"}, {"pod", "p"}, {"namespace", "n"}},
      {1000, 2000},
      {"100", "9223372036854775794"}};  // DCGM_INT64_BLANK + 2: "not supported"
  RangeSeries w2 = w1;
  w2.times_ms = {2000, 3000};
  w2.values = {"200", "300"};
  RangeSeries free{
      {{"__name__", "DCGM_FI_DEV_FB_FREE"}, {"UUID", "GPU-1"}, {"gpu", "0"}, {"pod", "p"}, {"namespace", "n"}},
      {3000},
      {"700"}};
  RangeSeries unattributed{{{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"UUID", "GPU-2"}}, {1000}, {"5"}};
  PodProfiles pods = BuildPodProfiles({w1, w2, free, unattributed}, "http://x");
  EXPECT_EQ(pods.series_without_pod, 1);
  EXPECT_EQ(pods.blank_values, 1);
  ASSERT_EQ(pods.by_pod.size(), 1u);
  const Profile& p = pods.by_pod.begin()->second;
  EXPECT_EQ(p.metadata.source, "n/p");
  ASSERT_EQ(p.series.size(), 2u);
  ASSERT_EQ(p.series[0].samples.size(), 3u);  // 1000, 2000 (from w2; w1's was blank), 3000
  EXPECT_DOUBLE_EQ(p.series[0].samples[1].value, 200.0 * 1024 * 1024);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].memory_bytes, 1000LL * 1024 * 1024);  // FREE 700 + USED 300 MiB at t=3000
}

}  // namespace
}  // namespace kraken::promql
