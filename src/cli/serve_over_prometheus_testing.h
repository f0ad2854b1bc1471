// A real Prometheus loaded with a history and the real `kraken serve --prometheus` on it,
// both on loopback: the pair that the serve and live test suites start once per suite.
// Header-only: it needs the test's KRAKEN_BINARY_PATH.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/prometheus_test_server.h"

namespace kraken::testing {

struct ServeOverPrometheus {
  // `name` names the temporary folders (name, name + "_api").
  ServeOverPrometheus(const std::string& history, const std::string& name)
      : prometheus(history, MakeTempDir(name)) {
    if (!prometheus.ok()) return;
    std::string dir = MakeTempDir(name + "_api");
    port = FreeLoopbackPort();
    serve = std::make_unique<ChildProcess>(
        std::vector<std::string>{KRAKEN_BINARY_PATH, "serve", "--host", "127.0.0.1", "--port", std::to_string(port),
                                 "--db", dir + "/api.db", "--prometheus", prometheus.url()},
        dir + "/serve.log");
    serve->WaitForLog("listening on", std::chrono::seconds(20));
  }
  // For each test's SetUp: ASSERT_TRUE(pair.ready()) << pair.problem().
  bool ready() const { return prometheus.ok() && serve != nullptr && serve->running(); }
  std::string problem() const { return !prometheus.ok() ? prometheus.error() : serve != nullptr ? serve->Log() : ""; }

  PrometheusServer prometheus;
  std::unique_ptr<ChildProcess> serve;  // stopped before Prometheus (members go in reverse)
  int port = 0;
};

}  // namespace kraken::testing
