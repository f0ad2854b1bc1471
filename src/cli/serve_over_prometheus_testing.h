// A real Prometheus loaded with a history and the real `kraken serve --prometheus` on it,
// both on loopback: the pair that the serve and live test suites start once per suite.
// Header-only: it needs the test's KRAKEN_BINARY_PATH.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/testing/built_files.h"
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

// The fixture of a suite that shares one ServeOverPrometheus: its SetUpTestSuite builds the
// history and calls StartServing; every test then finds the pair ready. CRTP, so each suite
// has its own pair (static members of its own base).
template <typename Suite>
class ServeOverPrometheusTest : public ::testing::Test {
 protected:
  static void StartServing(const std::string& history, const std::string& name) {
    served_ = new ServeOverPrometheus(history, name);
    prometheus_ = &served_->prometheus;
    serve_ = served_->serve.get();
    port_ = served_->port;
  }
  static void TearDownTestSuite() {
    delete served_;
    served_ = nullptr;
    prometheus_ = nullptr;
    serve_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(served_, nullptr) << "the suite's SetUpTestSuite did not call StartServing";
    ASSERT_TRUE(served_->ready()) << served_->problem();
  }

  static inline ServeOverPrometheus* served_ = nullptr;
  static inline PrometheusServer* prometheus_ = nullptr;
  static inline ChildProcess* serve_ = nullptr;
  static inline int port_ = 0;
};

}  // namespace kraken::testing
