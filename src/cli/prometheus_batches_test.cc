// promql::QueryClusterInBatches against a real Prometheus on loopback (a day of history
// built from the real dcgm-exporter captures in ../shared/data/dcgm): a namespace read pod
// batch by pod batch, one pod per batch at the smallest budget, must give exactly the
// pods, series and samples that the one-query QueryCluster gives. A pod name with a '.'
// checks that the pod regex matches that pod and no other.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>

#include "base/testing/test_data.h"
#include "cli/prometheus_test_server.h"
#include "promql/cluster_query.h"

namespace kraken {
namespace {

constexpr char kBatchA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kBatchT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";

// Per pod: its series as "metric/gpu/instance" -> sample count, and the sum of values.
using PodDigest = std::map<std::string, std::pair<size_t, double>>;

std::map<promql::PodKey, PodDigest> DigestOf(const promql::PodProfiles& pods) {
  std::map<promql::PodKey, PodDigest> out;
  for (const auto& [key, profile] : pods.by_pod)
    for (const Series& s : profile.series) {
      std::string name = std::string(GetMetricInfo(s.metric).name) + "/" + std::to_string(s.entity.gpu_index) + "/" +
                         std::to_string(s.entity.gpu_instance_id);
      double sum = 0;
      for (const Sample& sample : s.samples) sum += sample.value;
      auto& [count, total] = out[key][name];
      count += s.samples.size();
      total += sum;
    }
  return out;
}

TEST(PrometheusBatchesTest, PodBatchesGiveWhatOneQueryGives) {
  int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  int64_t end_s = now / 300 * 300 - 3600;
  std::vector<testing::CaptureAttribution> captures = {
      {kBatchA100, "ub20-a100-k8s", false, "ml", "trainer.0", true},
      {kBatchA100, "ub20-a100-k8s", true, "ml", "notebook-0", false},
      {kBatchT4, "424773df46e0", false, "ml", "infer-t4", false},
      {kBatchT4, "", false, "", "", false},  // the A10G line: namespace ray-llm, not asked for
  };
  int64_t series = 0;
  std::string history = testing::BuildOpenMetricsHistory(captures, {end_s, 86400, 300}, &series);
  testing::PrometheusServer server(history, testing::MakeTempDir("prometheus_batches"));
  ASSERT_TRUE(server.ok()) << server.error();
  auto client = promql::PrometheusClient::Create(server.url());
  ASSERT_TRUE(client.ok());

  promql::ClusterQueryOptions options;
  options.namespace_name = "ml";
  options.range_s = 86400;
  options.end_s = end_s;
  auto whole = promql::QueryCluster(**client, options);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  std::map<promql::PodKey, PodDigest> expected = DigestOf(whole->pods);
  ASSERT_EQ(expected.size(), 3u);

  options.points_per_batch = 1;  // every pod its own batch
  std::map<promql::PodKey, PodDigest> batched;
  int batches = 0;
  auto in_batches = promql::QueryClusterInBatches(**client, options, [&](promql::PodProfiles& batch) {
    ++batches;
    EXPECT_EQ(batch.by_pod.size(), 1u);
    for (auto& [key, digest] : DigestOf(batch)) EXPECT_TRUE(batched.emplace(key, digest).second) << key.pod;
  });
  ASSERT_TRUE(in_batches.ok()) << in_batches.status().message();
  EXPECT_EQ(batches, 3);
  EXPECT_EQ(batched, expected);
  EXPECT_TRUE(batched.count({"ml", "trainer.0"}));
  EXPECT_EQ(in_batches->series_received, whole->series_received);
  EXPECT_EQ(in_batches->points_received, whole->points_received);
  EXPECT_EQ(in_batches->plan.step_s, whole->plan.step_s);
  EXPECT_EQ(in_batches->query, whole->query);

  // A generous budget reads the namespace in one batch.
  options.points_per_batch = 1'000'000'000;
  batches = 0;
  auto one = promql::QueryClusterInBatches(**client, options, [&](promql::PodProfiles& batch) {
    ++batches;
    EXPECT_EQ(DigestOf(batch), expected);
  });
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(batches, 1);
}

TEST(PrometheusBatchesTest, UnreachablePrometheusIsAnErrorNamingIt) {
  auto client = promql::PrometheusClient::Create("http://127.0.0.1:9");
  ASSERT_TRUE(client.ok());
  promql::ClusterQueryOptions options;
  options.namespace_name = "ml";
  auto r = promql::QueryClusterInBatches(**client, options, [](promql::PodProfiles&) { FAIL(); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().message();
  EXPECT_NE(r.status().message().find("127.0.0.1:9"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace kraken
