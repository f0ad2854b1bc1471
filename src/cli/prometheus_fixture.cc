// A real Prometheus for tests that are not C++ (the C API's C tests): serves the week of
// DCGM history the cluster tests use (prometheus_cluster_test.cc), prints
// "URL END_S" on one line, and keeps serving until its standard input closes.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "base/testing/test_data.h"
#include "cli/prometheus_test_server.h"

namespace {

int ServeUntilStdinCloses(const std::string& history, const std::string& work_dir, int64_t end_s) {
  kraken::testing::PrometheusServer server(history, work_dir);
  if (!server.ok()) {
    std::fprintf(stderr, "prometheus fixture: %s\n", server.error().c_str());
    return 1;
  }
  std::printf("%s %lld\n", server.url().c_str(), static_cast<long long>(end_s));
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return 0;
}

}  // namespace

int main() {
  using namespace kraken;
  constexpr char kA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
  constexpr char kT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";
  int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t end_s = now / 300 * 300 - 3600;  // an hour back: all of it in persisted blocks
  std::vector<testing::CaptureAttribution> captures = {
      {kA100, "ub20-a100-k8s", false, "ml", "trainer-0", true},
      {kA100, "ub20-a100-k8s", true, "ml", "notebook-0", true},
      {kT4, "424773df46e0", false, "ml", "infer-t4", false},
      {kT4, "", false, "", "", false},
  };
  int64_t series = 0;
  std::string history = testing::BuildOpenMetricsHistory(captures, {end_s, 7 * 86400, 300}, &series);
  // MakeTempDir's clean-up runs at the end of a gtest program; this is not one, so the
  // data folder is removed here, after the server has stopped.
  const std::string work_dir = testing::MakeTempDir("prometheus_fixture");
  int rc = ServeUntilStdinCloses(history, work_dir, end_s);
  std::error_code ignored;
  std::filesystem::remove_all(work_dir, ignored);
  return rc;
}
