// The KRAKEN design's spellings on the real kraken binary: its YAML config (warnings, one
// line per key kraken does not act on), its environment variables, KRAKEN_MODE=daemon with
// KRAKEN_METRICS_PORT as its DaemonSet sets them, KRAKEN_ENABLE_GPU_PROFILING=false, and
// the one-line errors for an unknown subcommand or option.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <cstdlib>
#include <fstream>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

using namespace std::chrono_literals;

std::string WriteDesignConfig(const std::string& dir) {
  std::string path = dir + "/kraken_config.yaml";
  std::ofstream(path) << "profiler:\n"
                         "  sampling:\n"
                         "    interval_ms: 200\n"
                         "    buffer_size: 300\n"
                         "  metrics:\n"
                         "    gpu:\n"
                         "      enabled: [utilization, power]\n"
                         "      detailed_kernels: true\n"
                         "  storage:\n"
                         "    backend: sqlite\n"
                         "    retention_days: 3\n"
                         "  output:\n"
                         "    realtime_streaming: true\n";
  return path;
}

TEST(DesignCompatCliTest, TheDesignsConfigMapsAndWarnsOncePerKey) {
  std::string dir = testing::MakeTempDir("design_cli_config");
  std::string file = WriteDesignConfig(dir);
  RunResult r = RunKraken("config --json", "KRAKEN_CONFIG=" + file + " KRAKEN_LOG_LEVEL=INFO ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One warning line per key kraken does not act on, naming the key's full path.
  EXPECT_EQ(r.err, "kraken: warning: " + file +
                       ":8: profiler.metrics.gpu.detailed_kernels: not acted on: per-kernel timing comes from `kraken "
                       "profile --kernels` (CUPTI) or an imported trace, not from the sampler\n"
                       "kraken: warning: " + file +
                       ":13: profiler.output.realtime_streaming: not acted on: the agent always serves live /metrics "
                       "for Prometheus (agent.listen); there is no other stream\n");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  std::map<std::string, std::pair<std::string, std::string>> settings;
  for (simdjson::dom::element s : doc["settings"].get_array()) {
    std::string_view key, value, source;
    ASSERT_EQ(s["key"].get(key), simdjson::SUCCESS);
    ASSERT_EQ(s["value"].get(value), simdjson::SUCCESS);
    ASSERT_EQ(s["source"].get(source), simdjson::SUCCESS);
    settings[std::string(key)] = {std::string(value), std::string(source)};
  }
  EXPECT_EQ(settings["sampling.interval"],
            std::make_pair(std::string("200ms"), "file " + file + ":3 (profiler.sampling.interval_ms)"));
  EXPECT_EQ(settings["agent.ring"], std::make_pair(std::string("1m"), "file " + file + ":4 (profiler.sampling.buffer_size)"));
  EXPECT_EQ(settings["metrics.clocks"].first, "false");
  EXPECT_EQ(settings["store.retention"].first, "3d");
  EXPECT_EQ(settings["log_level"], std::make_pair(std::string("info"), std::string("env KRAKEN_LOG_LEVEL")));
  EXPECT_EQ(doc["warnings"].get_array().size(), 2u);

  // A key the design does not have is an error like kraken's own, exit 2.
  std::string bad = dir + "/bad.yaml";
  std::ofstream(bad) << "profiler:\n  storage:\n    retention: 30\n";
  ExpectOneLineError(RunKraken("config --config " + bad),
                     bad + ":3: key 'profiler.storage.retention' is not a key of the KRAKEN design's config");
}

TEST(DesignCompatCliTest, KrakenModeDaemonRunsTheAgentOnKrakenMetricsPort) {
  std::string dir = testing::MakeTempDir("design_cli_daemon");
  int port = testing::FreeLoopbackPort();
  ASSERT_GT(port, 0);
  ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100x8.nvml").c_str(), 1);
  ::setenv("KRAKEN_NVML_LIBRARY", KRAKEN_NVML_REPLAY_LIBRARY, 1);
  ::setenv("KRAKEN_MODE", "daemon", 1);
  ::setenv("KRAKEN_METRICS_PORT", std::to_string(port).c_str(), 1);
  ::setenv("KRAKEN_STORAGE_PATH", dir.c_str(), 1);  // a folder: FOLDER/kraken.db
  // As the design's DaemonSet runs its image: no arguments at all.
  testing::ChildProcess daemon({KRAKEN_BINARY_PATH}, dir + "/agent.log");
  std::string log = daemon.WaitForLog("/metrics: ", 30s);
  for (const char* name : {"KRAKEN_MODE", "KRAKEN_METRICS_PORT", "KRAKEN_STORAGE_PATH", "KRAKEN_NVML_LIBRARY"})
    ::unsetenv(name);
  ASSERT_NE(log.find("kraken agent: info: serving http://0.0.0.0:" + std::to_string(port) + "/metrics: 8 GPUs"),
            std::string::npos)
      << daemon.Log();
  httplib::Client client("127.0.0.1", port);
  auto scrape = client.Get("/metrics");
  ASSERT_TRUE(scrape);
  EXPECT_EQ(scrape->status, 200);
  EXPECT_NE(scrape->body.find("DCGM_FI_DEV_GPU_UTIL{"), std::string::npos);
  EXPECT_EQ(daemon.Stop(SIGTERM, 15s), 0) << daemon.Log();
  EXPECT_NE(daemon.Log().find("store " + dir + "/kraken.db"), std::string::npos) << daemon.Log();

  // Another mode without a subcommand is an error; with a subcommand it is not consulted.
  ExpectOneLineError(RunKraken("", "KRAKEN_MODE=batch "),
                     "KRAKEN_MODE: 'batch' is not a mode kraken knows (daemon runs `kraken agent`)");
  EXPECT_EQ(RunKraken("formats", "KRAKEN_MODE=batch ").exit_code, 0);
}

TEST(DesignCompatCliTest, GpuProfilingOffServesTheAgentWithoutNvml) {
  std::string dir = testing::MakeTempDir("design_cli_nogpu");
  ::setenv("KRAKEN_ENABLE_GPU_PROFILING", "false", 1);
  // No NVML library anywhere: with GPU sampling off none is opened.
  testing::ChildProcess agent({KRAKEN_BINARY_PATH, "agent", "--listen", "127.0.0.1:0", "--nvml-library",
                               dir + "/no-such-libnvidia-ml.so"},
                              dir + "/agent.log");
  std::string log = agent.WaitForLog("/metrics: ", 30s);
  ::unsetenv("KRAKEN_ENABLE_GPU_PROFILING");
  size_t at = log.find("serving http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << agent.Log();
  int port = std::atoi(log.c_str() + at + std::strlen("serving http://127.0.0.1:"));
  EXPECT_NE(log.find("GPU sampling is off (sampling.gpu: false), no NVML, no store"), std::string::npos) << log;
  httplib::Client client("127.0.0.1", port);
  auto scrape = client.Get("/metrics");
  ASSERT_TRUE(scrape);
  EXPECT_NE(scrape->body.find("\nkraken_agent_gpu_sampling 0\n"), std::string::npos) << scrape->body;
  EXPECT_EQ(scrape->body.find("DCGM_"), std::string::npos);
  EXPECT_EQ(client.Get("/healthz")->status, 200);
  EXPECT_EQ(agent.Stop(SIGTERM, 15s), 0) << agent.Log();
}

TEST(DesignCompatCliTest, UnknownSubcommandsAndOptionsGetTheClosestName) {
  ExpectOneLineError(RunKraken("analyz"), "unknown command 'analyz' (did you mean 'analyze'?)");
  ExpectOneLineError(RunKraken("anlayze trace.json"), "unknown command 'anlayze' (did you mean 'analyze'?)");
  ExpectOneLineError(RunKraken("agnet"), "unknown command 'agnet' (did you mean 'agent'?)");
  ExpectOneLineError(RunKraken("frobnicate"), "unknown command 'frobnicate' (`kraken --help` lists the commands)");
  ExpectOneLineError(RunKraken("agent --intervl 1s"), "unknown option '--intervl' of 'kraken agent' (did you mean '--interval'?)");
  ExpectOneLineError(RunKraken("config --prnt"), "unknown option '--prnt' of 'kraken config' (did you mean '--print'?)");
  // A misspelt required option is the unknown one, not a missing --out (CLI11 checks
  // required options first); a name that starts with a real one suggests it.
  ExpectOneLineError(RunKraken("record-nvml --output capture.nvml"),
                     "unknown option '--output' of 'kraken record-nvml' (did you mean '--out'?)");
  // A nested command's options are its own: `--budget` of `cost recommend` is not blamed.
  ExpectOneLineError(RunKraken("cost recommend trace.json --budget 5 --bogus"),
                     "unknown option '--bogus' of 'kraken cost recommend' (`kraken cost recommend --help` lists them)");
  ExpectOneLineError(RunKraken("cost chargeback --prometheus http://127.0.0.1:1 --rnage 3d"),
                     "unknown option '--rnage' of 'kraken cost chargeback' (did you mean '--range'?)");
}

}  // namespace
}  // namespace kraken
