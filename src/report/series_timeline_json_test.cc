#include "report/series_timeline_json.h"

#include <gtest/gtest.h>
#include <simdjson.h>

namespace kraken {
namespace {

Series MakeSeries(Metric metric, int gpu, size_t n, double step_s, double value_scale) {
  Series s;
  s.metric = metric;
  s.entity.gpu_index = gpu;
  for (size_t i = 0; i < n; ++i)
    s.samples.push_back({TimeNs{1'700'000'000'000'000'000} + static_cast<TimeNs>(static_cast<double>(i) * step_s * 1e9),
                         static_cast<double>(i) * value_scale});
  return s;
}

TEST(SeriesTimelineJsonTest, LongSeriesBecomeBucketMeansInPanelOrder) {
  Profile p;
  p.series.push_back(MakeSeries(Metric::kPowerW, 0, 10, 1.0, 1.0));
  p.series.push_back(MakeSeries(Metric::kGpuUtilPct, 0, 1000, 0.5, 0.1));
  p.series.push_back(MakeSeries(Metric::kFbUsedBytes, 1, 3, 2.0, 1024.0 * 1024 * 1024));
  Series iterations = MakeSeries(Metric::kGpuUtilPct, 2, 5, 1.0, 1.0);
  iterations.axis = SampleAxis::kIteration;  // no clock: left out
  p.series.push_back(iterations);
  Series no_clock = MakeSeries(Metric::kPowerW, 0, 4, 1.0, 1.0);  // dmon without -o T
  for (size_t i = 0; i < no_clock.samples.size(); ++i)
    no_clock.samples[i].time_ns = TimeNs{3'000'000'000} + static_cast<TimeNs>(i) * 1'000'000'000;
  no_clock.source_name = "pwr";
  p.series.push_back(no_clock);
  std::vector<Profile> profiles;
  profiles.push_back(std::move(p));
  std::string json = RenderSeriesTimelineJson(profiles, 600);

  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(json);
  EXPECT_DOUBLE_EQ(doc["start_unix_s"].get_double().value(), 1.7e9);
  simdjson::dom::array panels = doc["panels"].get_array().value();
  ASSERT_EQ(panels.size(), 3u);  // utilization, memory, power; no SM activity series
  simdjson::dom::element util = panels.at(0).value();
  EXPECT_EQ(util["id"].get_string().value(), "utilization");
  simdjson::dom::array util_series = util["series"].get_array().value();
  ASSERT_EQ(util_series.size(), 1u);
  simdjson::dom::element s = util_series.at(0).value();
  EXPECT_EQ(s["name"].get_string().value(), "GPU 0 gpu_util_pct");
  EXPECT_EQ(s["samples"].get_uint64().value(), 1000u);
  // 1000 samples into at most 600 points: buckets of 2, so 500 points; the first is the
  // mean of samples 0 and 1 (t 0 and 0.5 s, values 0 and 0.1).
  simdjson::dom::array t = s["t_s"].get_array().value();
  simdjson::dom::array v = s["v"].get_array().value();
  ASSERT_EQ(t.size(), 500u);
  EXPECT_NEAR(t.at(0).get_double().value(), 0.25, 1e-9);
  EXPECT_NEAR(v.at(0).get_double().value(), 0.05, 1e-9);
  EXPECT_NEAR(v.at(499).get_double().value(), (99.8 + 99.9) / 2, 1e-9);
  // Memory in GiB: the third sample of 2 x 1 GiB steps is 2 GiB, at t = 4 s.
  simdjson::dom::element memory = panels.at(1).value();
  EXPECT_EQ(memory["unit"].get_string().value(), "GiB");
  simdjson::dom::element fb = memory["series"].get_array().value().at(0).value();
  EXPECT_EQ(fb["name"].get_string().value(), "GPU 1 fb_used_bytes");
  EXPECT_NEAR(fb["v"].get_array().value().at(2).get_double().value(), 2.0, 1e-12);
  EXPECT_NEAR(fb["t_s"].get_array().value().at(2).get_double().value(), 4.0, 1e-9);
  // The clockless series is drawn from its own zero, named with its source field.
  simdjson::dom::array power = panels.at(2).value()["series"].get_array().value();
  ASSERT_EQ(power.size(), 2u);
  EXPECT_EQ(power.at(0).value()["clock"].get_string().value(), "unix");
  simdjson::dom::element pwr = power.at(1).value();
  EXPECT_EQ(pwr["name"].get_string().value(), "GPU 0 power_w (pwr)");
  EXPECT_EQ(pwr["clock"].get_string().value(), "relative");
  EXPECT_NEAR(pwr["t_s"].get_array().value().at(0).get_double().value(), 0.0, 1e-12);
  EXPECT_NEAR(pwr["t_s"].get_array().value().at(3).get_double().value(), 3.0, 1e-12);
}

// NVML's PCIe counters (B/s) are drawn in MB/s, sent and received in one panel.
TEST(SeriesTimelineJsonTest, PcieThroughputIsItsOwnPanelInMegabytesPerSecond) {
  Profile p;
  p.series.push_back(MakeSeries(Metric::kPcieTxBytesPerS, 0, 3, 1.0, 2.5e6));
  p.series.push_back(MakeSeries(Metric::kPcieRxBytesPerS, 0, 3, 1.0, 1e6));
  std::vector<Profile> profiles;
  profiles.push_back(std::move(p));
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(RenderSeriesTimelineJson(profiles, 600));
  simdjson::dom::array panels = doc["panels"].get_array().value();
  ASSERT_EQ(panels.size(), 1u);
  simdjson::dom::element pcie = panels.at(0).value();
  EXPECT_EQ(pcie["id"].get_string().value(), "pcie");
  EXPECT_EQ(pcie["unit"].get_string().value(), "MB/s");
  simdjson::dom::array series = pcie["series"].get_array().value();
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series.at(0).value()["name"].get_string().value(), "GPU 0 pcie_tx_bytes_per_s");
  EXPECT_NEAR(series.at(0).value()["v"].get_array().value().at(2).get_double().value(), 5.0, 1e-9);  // 5e6 B/s
  EXPECT_NEAR(series.at(1).value()["v"].get_array().value().at(2).get_double().value(), 2.0, 1e-9);  // 2e6 B/s
}

TEST(SeriesTimelineJsonTest, NoSamplesGivesNoPanels) {
  std::vector<Profile> profiles(1);
  EXPECT_EQ(RenderSeriesTimelineJson(profiles), R"({"start_unix_s":null,"panels":[]})");
}

}  // namespace
}  // namespace kraken
