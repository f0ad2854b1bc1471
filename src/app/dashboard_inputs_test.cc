// The request layer on the real inputs the dashboard showed wrongly (issue 15, section 4):
// the H100 nvidia-smi capture's clock, the GenAI trace's 143 pods through disagg, mig-plan
// and colocate, and the report document's reduced series.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "app/cluster_view.h"
#include "app/colocate_request.h"
#include "app/disagg_request.h"
#include "app/mig_plan_request.h"
#include "app/report_request.h"
#include "app/store_requests.h"
#include "base/testing/test_data.h"
#include "report/series_timeline_json.h"
#include "importers/registry.h"
#include "model/time_base.h"

namespace kraken {
namespace {

constexpr const char* kH100Capture = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
constexpr const char* kGenAiDutyCycle = "alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv.gz";
// collected_at of the capture's preamble: 2026-07-14T08:12:38Z.
constexpr TimeNs kCaptureCollectedNs = 1'784'016'758'000'000'000;

std::vector<Profile> ImportReal(const std::string& relative) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath(relative));
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(*result) : std::vector<Profile>{};
}

std::pair<TimeNs, TimeNs> SampleRange(const Profile& p) {
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
  for (const Series& s : p.series)
    for (const Sample& sample : s.samples) {
      first = std::min(first, sample.time_ns);
      last = std::max(last, sample.time_ns);
    }
  return {first, last};
}

TEST(DashboardInputsTest, H100CaptureIsOneEpochClockOfNineteenAndAHalfSeconds) {
  std::vector<Profile> profiles = ImportReal(kH100Capture);
  ASSERT_EQ(profiles.size(), 1u);
  const Profile& p = profiles[0];
  ASSERT_TRUE(ProfileTimeBase(p).ok());
  EXPECT_EQ(*ProfileTimeBase(p), TimeBase::kEpoch);
  auto [first, last] = SampleRange(p);
  // The idle -q report's Timestamp (08:12:38; the zone is unknown: read as UTC) to the load
  // dmon's fifth row, 4 s after the load phase's last timestamp (08:12:53.500 + 4 s).
  EXPECT_EQ(first, kCaptureCollectedNs);
  EXPECT_EQ(last, kCaptureCollectedNs + 15'500'000'000 + 4'000'000'000);
  EXPECT_GT(p.import_counters.at("nvidia_smi_samples_anchored"), 0);

  // `kraken list` reads the duration back from the store: 19.5 s, not 495,560 hours.
  std::string dir = testing::MakeTempDir("dashboard_inputs_list");
  std::string db = dir + "/profiles.db";
  ASSERT_TRUE(SaveProfiles(db, profiles).ok());
  auto listing = RenderProfileList(db, /*json=*/true);
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(*listing);
  simdjson::dom::element row = doc["profiles"].at(0);
  EXPECT_EQ(row["duration_ns"].get_int64().value(), 19'500'000'000);
  EXPECT_EQ(std::string(row["device_summary"].get_string().value()), "1x NVIDIA H100 80GB HBM3");
}

TEST(DashboardInputsTest, H100ReportSeriesSpanTheCaptureNotFiftySixYears) {
  std::vector<Profile> profiles = ImportReal(kH100Capture);
  ReportSettings settings;
  auto data = RenderReportData(profiles, settings);
  ASSERT_TRUE(data.ok()) << data.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(*data);
  EXPECT_DOUBLE_EQ(doc["series"]["start_unix_s"].get_double().value(), 1'784'016'758.0);
  // The report's memory figure needs the device's memory: 80 GiB of the H100 (79.6 GiB
  // as -q reports it), which the workload page now reads from the same document.
  EXPECT_GT(doc["device_memory_bytes"].at(0).get_int64().value(), 80'000'000'000);
  double t_min = 1e300, t_max = -1e300;
  for (simdjson::dom::element panel : doc["series"]["panels"].get_array())
    for (simdjson::dom::element line : panel["series"].get_array()) {
      EXPECT_EQ(std::string(line["clock"].get_string().value()), "unix");
      for (simdjson::dom::element t : line["t_s"].get_array()) {
        t_min = std::min(t_min, t.get_double().value());
        t_max = std::max(t_max, t.get_double().value());
      }
    }
  EXPECT_NEAR(t_min, 0.0, 1e-9);
  EXPECT_NEAR(t_max, 19.5, 1e-6);
}

// Each pod's duty-cycle mean, from the imported series (the percentages the trace holds).
std::map<std::string, double> PodMeans(const Profile& p) {
  std::map<std::string, double> means;
  for (const Series& s : p.series) {
    double sum = 0;
    for (const Sample& sample : s.samples) sum += sample.value;
    means[s.entity.pod] = sum / static_cast<double>(s.samples.size());
  }
  return means;
}

TEST(DashboardInputsTest, GenAiPodsStayApartThroughDisaggMigPlanAndColocate) {
  std::vector<Profile> profiles = ImportReal(kGenAiDutyCycle);
  ASSERT_EQ(profiles.size(), 1u);
  std::map<std::string, double> means = PodMeans(profiles[0]);
  ASSERT_EQ(means.size(), 143u);

  std::vector<disagg::DisaggResult> disagg = DisaggResultsOf(profiles, disagg::DisaggOptions{});
  ASSERT_EQ(disagg.size(), 143u);
  std::set<std::string> names;
  for (const disagg::DisaggResult& r : disagg) {
    names.insert(r.workload);
    size_t at = r.workload.find(" pod ");
    ASSERT_NE(at, std::string::npos) << r.workload;
    std::string pod = r.workload.substr(at + 5);
    ASSERT_TRUE(means.count(pod)) << pod;
    EXPECT_NEAR(r.need.compute_mean, means[pod] / 100, 1e-9) << pod;
  }
  EXPECT_EQ(names.size(), 143u);

  auto mig = LoadMigWorkloads({testing::DataPath(kGenAiDutyCycle)}, InputOptions{});
  ASSERT_TRUE(mig.ok()) << mig.status().message();
  ASSERT_EQ(mig->size(), 143u);
  std::set<std::string> mig_names;
  for (const mig::MigWorkload& w : *mig) mig_names.insert(w.name);
  EXPECT_EQ(mig_names, names);

  LoadedProfiles loaded;
  loaded.profiles = std::move(profiles);
  loaded.origins = {kGenAiDutyCycle};
  auto demands = DemandsOfProfiles(loaded, nullptr);
  ASSERT_TRUE(demands.ok()) << demands.status().message();
  ASSERT_EQ(demands->demands.size(), 143u);
  double busiest = 0;
  for (const WorkloadDemand& d : demands->demands) busiest = std::max(busiest, d.gpu_busy.mean);
  double busiest_pod = 0;
  for (const auto& [pod, mean] : means) busiest_pod = std::max(busiest_pod, mean / 100);
  EXPECT_NEAR(busiest, busiest_pod, 1e-9);
}

TEST(DashboardInputsTest, GenAiReportDrawsThePodsAsOneEnvelope) {
  std::vector<Profile> profiles = ImportReal(kGenAiDutyCycle);
  ASSERT_EQ(profiles.size(), 1u);
  uint64_t samples = 0;
  double lowest = 1e300, highest = -1e300;
  for (const Series& s : profiles[0].series)
    for (const Sample& sample : s.samples) {
      ++samples;
      lowest = std::min(lowest, sample.value);
      highest = std::max(highest, sample.value);
    }
  std::string series = RenderSeriesTimelineJson(profiles);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(series);
  simdjson::dom::element panel = doc["panels"].at(0);
  EXPECT_EQ(std::string(panel["id"].get_string().value()), "utilization");
  ASSERT_EQ(panel["series"].get_array().size(), 1u);
  simdjson::dom::element line = panel["series"].at(0);
  EXPECT_EQ(line["series_count"].get_uint64().value(), 143u);
  EXPECT_EQ(line["samples"].get_uint64().value(), samples);
  simdjson::dom::array t = line["t_s"], v = line["v"], lo = line["min"], hi = line["max"];
  EXPECT_LE(t.size(), 600u);
  EXPECT_GT(t.size(), 500u);
  double min_of_min = 1e300, max_of_max = -1e300;
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_LE(lo.at(i).get_double().value(), v.at(i).get_double().value() + 1e-9);
    EXPECT_LE(v.at(i).get_double().value(), hi.at(i).get_double().value() + 1e-9);
    min_of_min = std::min(min_of_min, lo.at(i).get_double().value());
    max_of_max = std::max(max_of_max, hi.at(i).get_double().value());
  }
  EXPECT_NEAR(min_of_min, lowest, 1e-6);  // JSON keeps 10 significant digits
  EXPECT_NEAR(max_of_max, highest, 1e-6);
  EXPECT_LT(series.size(), 100'000u);  // one line of <= 600 buckets, not 143
}

TEST(DashboardInputsTest, DeviceSummaryCountsNamesAndNamesTheUnnamed) {
  std::vector<std::string> eight(8, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(DescribeDevices(eight), "8x NVIDIA H100 80GB HBM3");
  EXPECT_EQ(DescribeDevices({"", "", "Tesla T4", ""}), "3x unnamed device, 1x Tesla T4");
  EXPECT_EQ(DescribeDevices({}), "");
}

}  // namespace
}  // namespace kraken

namespace kraken {
namespace {

// The H100 capture's load phase stored as live profiles, the way an agent commits them:
// twice, as two consecutive commits of the same GPU (the second an hour later).
void StoreLoadPhaseAsLive(ProfileStore& store, const Profile& p, TimeNs shift_ns) {
  std::map<TimeNs, SampleBatch> passes;
  for (const Series& s : p.series) {
    auto phase = s.entity.labels.find("phase");
    if (s.metric == Metric::kOther || s.entity.pid >= 0 || phase == s.entity.labels.end() || phase->second != "load")
      continue;
    for (const Sample& sample : s.samples) {
      SampleBatch& batch = passes[sample.time_ns + shift_ns];
      batch.time_ns = sample.time_ns + shift_ns;
      batch.entities.push_back(s.entity);
      batch.values.push_back({s.metric, static_cast<int32_t>(batch.entities.size() - 1), sample.value, s.source_name});
    }
  }
  auto id = store.BeginProfile(p.metadata, p.devices);
  ASSERT_TRUE(id.ok()) << id.status().message();
  for (const auto& [time, batch] : passes) ASSERT_TRUE(store.AppendBatch(*id, batch).ok());
  ASSERT_TRUE(store.Commit(*id).ok());
}

TEST(DashboardInputsTest, ClusterIsOneRowPerGpuOverEveryCommittedProfile) {
  std::vector<Profile> profiles = ImportReal(kH100Capture);
  ASSERT_EQ(profiles.size(), 1u);
  std::string db = testing::MakeTempDir("dashboard_inputs_cluster") + "/profiles.db";
  auto store = ProfileStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  constexpr TimeNs kHourNs = 3'600'000'000'000;
  StoreLoadPhaseAsLive(**store, profiles[0], 0);
  StoreLoadPhaseAsLive(**store, profiles[0], kHourNs);
  ClusterViewSettings settings;
  settings.bins = 10;
  auto document = RenderClusterView(**store, settings);
  ASSERT_TRUE(document.ok()) << document.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(*document);
  simdjson::dom::array gpus = doc["gpus"];
  ASSERT_EQ(gpus.size(), 1u);  // one GPU, however many profiles hold it
  simdjson::dom::element gpu = gpus.at(0);
  EXPECT_EQ(gpu["profiles"].get_int64().value(), 2);
  EXPECT_EQ(gpu["profile_id"].get_int64().value(), 2);  // the newest holds its newest sample
  EXPECT_EQ(std::string_view(gpu["gpu_name"].get_string().value()), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu["gpu_util_pct"].get_double().value(), 100);
  EXPECT_EQ(gpu["mean_gpu_util_pct"].get_double().value(), 100);  // load: -q, query-gpu and dmon all 100 %
  simdjson::dom::element heat = doc["heatmap"];
  EXPECT_EQ(heat["bins"].get_int64().value(), 10);
  // From the load phase's first sample (-q at 08:12:53) to the second commit's last one.
  EXPECT_EQ(heat["start_ns"].get_int64().value(), kCaptureCollectedNs + 15'000'000'000);
  TimeNs span = kHourNs + 4'500'000'000;
  EXPECT_EQ(heat["bin_ns"].get_int64().value(), span / 10 + 1);
  simdjson::dom::array values = heat["rows"].at(0)["values"];
  ASSERT_EQ(values.size(), 10u);
  EXPECT_EQ(values.at(0).get_double().value(), 100);  // the first commit
  EXPECT_EQ(values.at(9).get_double().value(), 100);  // the second
  for (size_t b = 1; b < 9; ++b) EXPECT_TRUE(values.at(b).is_null()) << b;  // the hour between
  EXPECT_FALSE(RenderClusterView(**store, ClusterViewSettings{30, 0}).ok());
}

}  // namespace
}  // namespace kraken
