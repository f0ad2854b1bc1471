// Golden tests of the GenAI per-pod importer on the four real files of
// shared/data/alibaba-genai-v2026. Expected numbers were read with Python's csv module.
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

size_t TotalSamples(const Profile& p) {
  size_t n = 0;
  for (const Series& s : p.series) n += s.samples.size();
  return n;
}

double Sum(const Series& s) {
  return std::accumulate(s.samples.begin(), s.samples.end(), 0.0,
                         [](double acc, const Sample& x) { return acc + x.value; });
}

TEST(GenAiPodImporter, GpuDutyCycle) {
  Profile p = ImportOne("alibaba-genai-v2026/pod_gpu_duty_cycle_anon.csv.gz");
  EXPECT_EQ(p.metadata.format, "alibaba-genai-pod");
  EXPECT_EQ(p.import_counters.at("genai_rows"), 157417);
  EXPECT_EQ(p.import_counters.count("genai_bad_rows"), 0u);
  ASSERT_EQ(p.series.size(), 143u);
  EXPECT_EQ(TotalSamples(p), 157417u);
  const Series& first = p.series.front();  // first pod of the file
  EXPECT_EQ(first.metric, Metric::kGpuUtilPct);
  EXPECT_EQ(first.source_name, "pod_gpu_duty_cycle");
  EXPECT_EQ(first.entity.pod, "23b8eba99c14e73d454503a55ae96989");
  ASSERT_EQ(first.samples.size(), 1441u);
  EXPECT_EQ(first.samples.front().time_ns, 1662858720 * kNs);
  EXPECT_EQ(first.samples.back().time_ns, 1662940800 * kNs);
  EXPECT_NEAR(Sum(first), 17613.561070640717, 1e-6);
  size_t full = 0;
  for (const Series& s : p.series) full += s.samples.size() == 1441;
  EXPECT_EQ(full, 72u);
}

TEST(GenAiPodImporter, GpuMemoryUsedBytes) {
  Profile p = ImportOne("alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.csv.gz");
  ASSERT_EQ(p.series.size(), 144u);
  EXPECT_EQ(TotalSamples(p), 161413u);
  const Series& first = p.series.front();
  EXPECT_EQ(first.metric, Metric::kFbUsedBytes);
  EXPECT_EQ(first.entity.pod, "23b8eba99c14e73d454503a55ae96989");
  EXPECT_EQ(first.samples.front().value, 33879490560.0);
  EXPECT_NEAR(Sum(first), 44350619429546.664, 1.0);
}

TEST(GenAiPodImporter, ContainerMemoryUtilizationKeepsDuplicateTimestamps) {
  Profile p = ImportOne("alibaba-genai-v2026/pod_memory_util_anon.csv.gz");
  ASSERT_EQ(p.series.size(), 208u);
  EXPECT_EQ(TotalSamples(p), 214890u);
  EXPECT_EQ(p.import_counters.at("genai_duplicate_timestamps"), 2);
  const Series& first = p.series.front();
  EXPECT_EQ(first.metric, Metric::kOther);
  EXPECT_EQ(first.source_name, "pod_memory_util");
  EXPECT_EQ(first.entity.pod, "25da09a77268ccc99a7968b3e453b8f0");
  EXPECT_NEAR(Sum(first), 978.640064338845, 1e-9);
}

TEST(GenAiPodImporter, QpsPerPodAndRequestType) {
  Profile p = ImportOne("alibaba-genai-v2026/qps.csv.gz");
  ASSERT_EQ(p.series.size(), 108u);
  EXPECT_EQ(TotalSamples(p), 24627u);
  const Series& api = p.series.front();  // rows without a container_ip
  EXPECT_EQ(api.source_name, "qps");
  EXPECT_EQ(api.entity.pod, "");
  EXPECT_EQ(api.entity.labels.at("request_type"), "API Requests");
  ASSERT_EQ(api.samples.size(), 1114u);
  EXPECT_EQ(api.samples.front().time_ns, 1662859176 * kNs);
  EXPECT_NEAR(Sum(api), 1390.094999999995, 1e-9);
}

TEST(GenAiPodImporter, MetricComesFromTheFileNameOrIsNotGuessed) {
  std::string text = "value,timestamp_anon,container_ip\n0.5,1662858720.0,aa\n1.5,1662858777.5,aa\nx,1,aa\n";
  auto result = ImportBuffer(BuiltinImporters(), "renamed.csv", text);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Profile& p = result->front();
  ASSERT_EQ(p.series.size(), 1u);
  EXPECT_EQ(p.series[0].metric, Metric::kOther);
  EXPECT_EQ(p.series[0].source_name, "value");
  EXPECT_EQ(p.series[0].samples[1].time_ns, 1662858777'500'000'000);
  EXPECT_EQ(p.import_counters.at("genai_bad_rows"), 1);
}

}  // namespace
}  // namespace kraken
