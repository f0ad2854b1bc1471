// What the `kraken analyze|annotate --prometheus` cluster tests share
// (prometheus_cluster_test.cc, prometheus_annotate_test.cc, prometheus_controller_test.cc):
// a real Prometheus 2.x on loopback, loaded once per test suite with a week of history
// built from real dcgm-exporter captures (../shared/data/dcgm): the values are the files'
// own, unchanged at every 5-minute sample; the pod attribution is the test's (the captures
// were taken without pods, except the A10G line of the DataDog fixture, whose real labels
// namespace="ray-llm",pod="ray-1111111" are kept).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base/testing/test_data.h"
#include "cli/prometheus_test_server.h"

namespace kraken::prometheus_cluster_testing {

inline constexpr char kClusterA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
inline constexpr char kClusterT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";
inline constexpr int64_t kClusterWeekS = 7 * 86400;
inline constexpr double kClusterMiB = 1024.0 * 1024.0;

class PrometheusClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    end_s_ = now / 300 * 300 - 3600;  // an hour back: all of it in persisted blocks
    testing::HistoryShape shape{end_s_, kClusterWeekS, 300};
    std::vector<testing::CaptureAttribution> captures = {
        // A100 node: the whole GPU to a trainer, MIG instance 13 (1g.5gb) to a notebook;
        // Prometheus scraped the exporter without honorLabels (exported_* spelling).
        {kClusterA100, "ub20-a100-k8s", false, "ml", "trainer-0", true},
        {kClusterA100, "ub20-a100-k8s", true, "ml", "notebook-0", true},
        // T4 with driver 460: an inference pod, labels kept as the exporter wrote them.
        {kClusterT4, "424773df46e0", false, "ml", "infer-t4", false},
        // The A10G line's own labels (namespace ray-llm).
        {kClusterT4, "", false, "", "", false},
    };
    std::string history = testing::BuildOpenMetricsHistory(captures, shape, &series_written_);
    server_ = new testing::PrometheusServer(history, testing::MakeTempDir("prometheus_server"));
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static std::string Args(const std::string& extra) {
    return "analyze --prometheus " + server_->url() + " --end " + std::to_string(end_s_) + " " + extra;
  }

  static inline testing::PrometheusServer* server_ = nullptr;
  static inline int64_t end_s_ = 0;
  static inline int64_t series_written_ = 0;
};

}  // namespace kraken::prometheus_cluster_testing
