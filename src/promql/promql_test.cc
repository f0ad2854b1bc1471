// Unit tests of the Prometheus input's pure parts: durations, the paging plan, the
// query_range answer, label spellings and merging windows into pod profiles. The end-to-end
// test against a real Prometheus is src/cli/prometheus_cluster_test.cc.
#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "importers/common/dcgm_entity.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"
#include "promql/node_gpus.h"
#include "promql/pod_profiles.h"
#include "promql/prometheus_client.h"
#include "promql/query_plan.h"
#include "promql/sample_interval.h"

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

// timestamp(selector) at a 60 s step: repeated sample times are one sample; the smallest
// gap of any series wins (mixed intervals), fractional scrape times round down.
TEST(SampleIntervalTest, SmallestGapBetweenDistinctSampleTimes) {
  promql::RangeSeries every_5m, every_2m, single;
  every_5m.values = {"1000", "1000", "1000", "1300", "1300", "1600"};
  every_2m.values = {"2000.5", "2000.5", "2120.5", "2240.5", "NaN"};
  single.values = {"5000", "5000"};
  EXPECT_EQ(promql::SmallestSampleIntervalS({every_5m}), 300);
  EXPECT_EQ(promql::SmallestSampleIntervalS({every_5m, every_2m, single}), 120);
  EXPECT_EQ(promql::SmallestSampleIntervalS({single}), 0);
  EXPECT_EQ(promql::SmallestSampleIntervalS({}), 0);
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

TEST(SeriesResponseTest, ReadsLabelSetsAndRefusesErrorsAndWrongShapes) {
  auto series = ParseSeriesResponse(R"({"status":"success","data":[)"
                                    R"({"__name__":"DCGM_FI_DEV_FB_USED","exported_pod":"train-0","gpu":"3"},)"
                                    R"({"__name__":"DCGM_FI_DEV_GPU_UTIL","pod":"a\"b"}]})");
  ASSERT_TRUE(series.ok()) << series.status().message();
  ASSERT_EQ(series->size(), 2u);
  EXPECT_EQ(SeriesLabel((*series)[0], "exported_pod"), "train-0");
  EXPECT_EQ(SeriesLabel((*series)[0], "gpu"), "3");
  EXPECT_EQ(SeriesLabel((*series)[1], "pod"), "a\"b");
  EXPECT_TRUE((*series)[0].values.empty());
  auto refused = ParseSeriesResponse(R"({"status":"error","errorType":"bad_data","error":"parse error"})");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("parse error"), std::string::npos);
  EXPECT_FALSE(ParseSeriesResponse("not json").ok());
  EXPECT_FALSE(ParseSeriesResponse(R"({"status":"success","data":{"resultType":"matrix"}})").ok());
  EXPECT_FALSE(ParseSeriesResponse(R"({"status":"success","data":[{"pod":3}]})").ok());
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

// Every sample line of a real dcgm-exporter capture as a one-point range series (what
// Prometheus would answer for the instant the capture was scraped at).
std::vector<RangeSeries> CaptureAsSeries(const std::string& data_file, int64_t time_ms) {
  std::vector<RangeSeries> out;
  std::string text = testing::ReadFileOrDie(testing::DataPath(data_file));
  prometheus::ExpositionLine line;
  for (std::string_view raw : Split(text, '\n')) {
    prometheus::ParseExpositionLine(raw, &line);
    if (line.kind != prometheus::LineKind::kSample) continue;
    RangeSeries& s = out.emplace_back();
    s.labels.push_back({"__name__", line.metric_name});
    for (const prometheus::Label& l : line.labels) s.labels.push_back({l.name, l.value});
    s.times_ms = {time_ms};
    s.values = {std::string(line.value_text)};
  }
  return out;
}

constexpr char kA100Capture[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kT4Capture[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";

TEST(NodeGpusTest, RealA100MigCaptureIsOneGpuWithOne1g5gbInstance) {
  std::vector<RangeSeries> series = CaptureAsSeries(kA100Capture, 1'700'000'000'000);
  ASSERT_EQ(series.size(), 21u);  // 17 whole-GPU lines + 4 of MIG instance 13
  auto nodes = NodeGpusFromSeries(series, nullptr);
  ASSERT_EQ(nodes.size(), 1u);
  const NodeGpus& a100 = nodes.at("ub20-a100-k8s");
  EXPECT_EQ(a100.gpu_count, 1);
  EXPECT_EQ(a100.mig_profiles, (std::map<std::string, int>{{"1g.5gb", 1}}));
  EXPECT_EQ(a100.gpu_class, "");  // the 2.4 exporter sends no modelName: no guess
  EXPECT_EQ(a100.last_seen_ms, 1'700'000'000'000);
  auto with_model = NodeGpusFromSeries(series, FindDeviceSpec("a100-40gb-sxm"));
  EXPECT_EQ(with_model.at("ub20-a100-k8s").gpu_class, "a100-40gb-sxm");
}

TEST(NodeGpusTest, RealT4AndA10gFixtureGivesThreeNodesWithoutMig) {
  auto nodes = NodeGpusFromSeries(CaptureAsSeries(kT4Capture, 1000), FindDeviceSpec("a100-40gb-sxm"));
  // The 14 hand-made lines without labels name no node and no GPU: left out.
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes.at("424773df46e0").gpu_class, "t4");  // modelName="Tesla T4" (driver 460)
  EXPECT_EQ(nodes.at("424773df46e0").gpu_count, 1);
  EXPECT_TRUE(nodes.at("424773df46e0").mig_profiles.empty());
  EXPECT_EQ(nodes.at("551bdf382151").gpu_class, "t4");  // driver 470 block
  EXPECT_EQ(nodes.at("551bdf382151").gpu_count, 1);
  // modelName="NVIDIA A10G" is not the catalog's A10; the fallback is only for GPUs
  // without any name, so the class stays unknown.
  EXPECT_EQ(nodes.at("ip-11111").gpu_class, "");
  EXPECT_EQ(nodes.at("ip-11111").gpu_count, 1);
}

TEST(NodeGpusTest, LayoutIsReadAtEachNodesLatestInstant) {
  // Real A100 lines: GPU instance 13 existed at t=1000 and was destroyed before t=2000,
  // when a second node with the same capture was also seen at t=1000 only.
  std::vector<RangeSeries> series;
  for (RangeSeries s : CaptureAsSeries(kA100Capture, 1000)) {
    bool mig = false;
    for (const auto& [name, value] : s.labels) mig = mig || name == "GPU_I_ID";
    if (!mig) s.times_ms.push_back(2000);
    series.push_back(s);
    for (auto& [name, value] : s.labels)
      if (name == "Hostname") value = "second-node";
    s.times_ms = {1000};
    series.push_back(s);
  }
  auto nodes = NodeGpusFromSeries(series, nullptr);
  EXPECT_TRUE(nodes.at("ub20-a100-k8s").mig_profiles.empty());  // as it is now
  EXPECT_EQ(nodes.at("ub20-a100-k8s").last_seen_ms, 2000);
  EXPECT_EQ(nodes.at("second-node").mig_profiles.at("1g.5gb"), 1);
  EXPECT_EQ(nodes.at("second-node").gpu_count, 1);
}

TEST(NodeGpusTest, ClassIsMixedOnlyWhenEveryGpuIsKnown) {
  auto gpu = [](std::string uuid, std::string model) {
    return RangeSeries{
        {{"__name__", "DCGM_FI_DEV_GPU_UTIL"}, {"UUID", uuid}, {"modelName", model}, {"Hostname", "n"}}, {1000}, {"1"}};
  };
  auto mixed = NodeGpusFromSeries({gpu("GPU-1", "NVIDIA H100 80GB HBM3"), gpu("GPU-2", "Tesla T4")}, nullptr);
  EXPECT_EQ(mixed.at("n").gpu_class, "mixed");
  EXPECT_EQ(mixed.at("n").gpu_count, 2);
  auto same =
      NodeGpusFromSeries({gpu("GPU-1", "NVIDIA H100 80GB HBM3"), gpu("GPU-2", "NVIDIA H100 80GB HBM3")}, nullptr);
  EXPECT_EQ(same.at("n").gpu_class, "h100-sxm");
  auto unknown = NodeGpusFromSeries({gpu("GPU-1", "NVIDIA H100 80GB HBM3"), gpu("GPU-2", "NVIDIA A10G")}, nullptr);
  EXPECT_EQ(unknown.at("n").gpu_class, "");
}

TEST(NodeGpusTest, QueryGroupsByTheIdentityLabelsOfEverySpelling) {
  std::string q = BuildNodeGpuQuery();
  EXPECT_EQ(q.rfind("group by (Hostname,hostname,instance,UUID,uuid,gpu_uuid,gpu,modelName,model_name,"
                    "DCGM_FI_DEV_NAME,GPU_I_PROFILE,GPU_I_ID) ({__name__=~\"",
                    0),
            0u)
      << q;
  EXPECT_NE(q.find("DCGM_FI_PROF_GR_ENGINE_ACTIVE"), std::string::npos);
  EXPECT_EQ(q.find("namespace"), std::string::npos);  // every namespace's GPUs
}

}  // namespace
}  // namespace kraken::promql
