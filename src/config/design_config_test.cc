// The KRAKEN design's config file (root `profiler:`) read through kraken's loader: each
// key maps onto kraken's, or gives one warning line; never silently ignored.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "base/testing/test_data.h"
#include "config/config.h"
#include "config/design_config.h"

namespace kraken::config {
namespace {

std::string WriteDesignFile(const std::string& text) {
  std::string path = testing::MakeTempDir("design-config") + "/kraken_config.yaml";
  std::ofstream(path) << text;
  return path;
}

// Every key of the design's documented file, with values of a training node.
const char kDesignFile[] =
    "# the KRAKEN design's layout\n"
    "profiler:\n"
    "  sampling:\n"
    "    interval_ms: 250\n"
    "    buffer_size: 2400\n"
    "  metrics:\n"
    "    gpu:\n"
    "      enabled: [utilization, power, profiling]\n"
    "      detailed_kernels: true\n"
    "    memory:\n"
    "      enabled: [allocated, fragmentation]\n"
    "      track_allocations: false\n"
    "    network:\n"
    "      enabled:\n"
    "        - pcie\n"
    "      measure_latency: true\n"
    "  analysis:\n"
    "    disaggregation:\n"
    "      enabled: true\n"
    "      algorithms: [statistical]\n"
    "      thresholds:\n"
    "        compute_memory_ratio: 0.4\n"
    "        network_sensitivity: 0.5\n"
    "        temporal_variance: 0.1\n"
    "    interference:\n"
    "      enabled: false\n"
    "      prediction_model: xgboost\n"
    "  storage:\n"
    "    backend: timeseries\n"
    "    retention_days: 14\n"
    "    compression: true\n"
    "  output:\n"
    "    formats: [json, csv]\n"
    "    destination: /tmp/profiles\n"
    "    realtime_streaming: true\n";

TEST(DesignConfigTest, EveryDesignKeyMapsOrWarnsOnce) {
  std::string path = WriteDesignFile(kDesignFile);
  ConfigInputs inputs;
  inputs.config_flag = path;
  auto config = ResolveConfig(inputs);
  ASSERT_TRUE(config.ok()) << config.status().message();
  const EffectiveConfig& c = *config;
  // Mapped: the interval, the ring (2400 passes of 250ms), the metric groups, retention.
  EXPECT_EQ(c.values.interval_ns, 250'000'000);
  EXPECT_EQ(DescribeSource(c.sources.at("sampling.interval")), "file " + path + ":4 (profiler.sampling.interval_ms)");
  EXPECT_EQ(ValueText(c.values, "agent.ring"), "10m");
  EXPECT_EQ(DescribeSource(c.sources.at("agent.ring")), "file " + path + ":5 (profiler.sampling.buffer_size)");
  EXPECT_TRUE(c.values.metrics.utilization);
  EXPECT_TRUE(c.values.metrics.power);
  EXPECT_TRUE(c.values.metrics.profiling);
  EXPECT_FALSE(c.values.metrics.temperature);
  EXPECT_FALSE(c.values.metrics.clocks);
  EXPECT_TRUE(c.values.metrics.errors);  // not in the design's vocabulary: untouched
  EXPECT_EQ(DescribeSource(c.sources.at("metrics.errors")), "default");
  EXPECT_TRUE(c.values.metrics.memory);
  EXPECT_TRUE(c.values.metrics.pcie);
  EXPECT_FALSE(c.values.metrics.nvlink);
  EXPECT_EQ(DescribeSource(c.sources.at("metrics.nvlink")), "file " + path + ":14 (profiler.metrics.network.enabled)");
  EXPECT_EQ(c.values.retention_ns, 14 * 86'400'000'000'000);

  // Not acted on: one line per key (per list item for the partly mapped lists).
  const std::vector<std::string> expected_keys = {
      "profiler.metrics.gpu.detailed_kernels",
      "profiler.metrics.memory.enabled",
      "profiler.metrics.memory.track_allocations",
      "profiler.metrics.network.measure_latency",
      "profiler.analysis.disaggregation.enabled",
      "profiler.analysis.disaggregation.algorithms",
      "profiler.analysis.disaggregation.thresholds.compute_memory_ratio",
      "profiler.analysis.disaggregation.thresholds.network_sensitivity",
      "profiler.analysis.disaggregation.thresholds.temporal_variance",
      "profiler.analysis.interference.enabled",
      "profiler.analysis.interference.prediction_model",
      "profiler.storage.backend",
      "profiler.output.formats",
      "profiler.output.destination",
      "profiler.output.realtime_streaming"};
  ASSERT_EQ(c.warnings.size(), expected_keys.size());
  for (size_t i = 0; i < expected_keys.size(); ++i) {
    const std::string& w = c.warnings[i];
    EXPECT_EQ(w.rfind(path + ":", 0), 0u) << w;
    EXPECT_NE(w.find(": " + expected_keys[i] + ": "), std::string::npos) << w;
    EXPECT_NE(w.find("not acted on: "), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  }
  EXPECT_EQ(c.warnings[0], path + ":9: profiler.metrics.gpu.detailed_kernels: not acted on: per-kernel timing comes "
                                  "from `kraken profile --kernels` (CUPTI) or an imported trace, not from the sampler");
  EXPECT_EQ(c.warnings[1], path + ":11: profiler.metrics.memory.enabled: 'fragmentation' not acted on: kraken does not "
                                  "measure allocator fragmentation");
  EXPECT_EQ(c.warnings[11], path + ":29: profiler.storage.backend: 'timeseries' not acted on: kraken's store is one "
                                   "SQLite database (store.path), which is used instead");
}

TEST(DesignConfigTest, EnvironmentAndFlagsOverrideDesignKeys) {
  std::string path = WriteDesignFile("profiler:\n  sampling:\n    interval_ms: 100\n  storage:\n    retention_days: 30\n"
                                     "    backend: sqlite\n    compression: true\n");
  ConfigInputs inputs;
  inputs.environment = {{"KRAKEN_CONFIG", path},
                        {"KRAKEN_LOG_LEVEL", "INFO"},
                        {"KRAKEN_STORAGE_PATH", "./data"},
                        {"KRAKEN_ENABLE_GPU_PROFILING", "false"},
                        {"KRAKEN_METRICS_PORT", "9090"}};
  inputs.flags = {{"sampling.interval", "--interval", "1s"}};
  auto config = ResolveConfig(inputs);
  ASSERT_TRUE(config.ok()) << config.status().message();
  const EffectiveConfig& c = *config;
  EXPECT_TRUE(c.warnings.empty());  // sqlite and compression are what kraken does
  EXPECT_EQ(c.values.interval_ns, 1'000'000'000);
  EXPECT_EQ(DescribeSource(c.sources.at("sampling.interval")), "flag --interval");
  EXPECT_EQ(c.values.retention_ns, 30 * 86'400'000'000'000);
  EXPECT_EQ(c.values.log_level, "info");
  EXPECT_EQ(c.values.store_path, "./data");
  EXPECT_FALSE(c.values.gpu_sampling);
  EXPECT_EQ(DescribeSource(c.sources.at("sampling.gpu")), "env KRAKEN_ENABLE_GPU_PROFILING");
  EXPECT_EQ(c.values.listen, ":9090");
  EXPECT_EQ(DescribeSource(c.sources.at("agent.listen")), "env KRAKEN_METRICS_PORT");

  // The flag beats KRAKEN_METRICS_PORT; a port that is none is an error naming the variable.
  inputs.flags = {{"agent.listen", "--listen", "127.0.0.1:9500"}};
  auto flagged = ResolveConfig(inputs);
  ASSERT_TRUE(flagged.ok()) << flagged.status().message();
  EXPECT_EQ(flagged->values.listen, "127.0.0.1:9500");
  inputs.environment["KRAKEN_METRICS_PORT"] = "http";
  auto bad = ResolveConfig(inputs);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "KRAKEN_METRICS_PORT: 'http' is not a port 0 .. 65535");
  inputs.environment["KRAKEN_METRICS_PORT"] = "9090";
  inputs.environment["KRAKEN_ENABLE_GPU_PROFILING"] = "sometimes";
  auto bad_bool = ResolveConfig(inputs);
  ASSERT_FALSE(bad_bool.ok());
  EXPECT_EQ(bad_bool.status().message(), "KRAKEN_ENABLE_GPU_PROFILING: 'sometimes' is not true or false");
}

std::string DesignErrorOf(const std::string& yaml) {
  std::string path = WriteDesignFile(yaml);
  ConfigInputs inputs;
  inputs.config_flag = path;
  auto config = ResolveConfig(inputs);
  EXPECT_FALSE(config.ok());
  std::string message = config.ok() ? "" : config.status().message();
  EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
  return message.substr(std::min(message.size(), path.size()));
}

TEST(DesignConfigTest, BadDesignKeysAndValuesNameFileLineAndKey) {
  EXPECT_EQ(DesignErrorOf("profiler:\n  sampling:\n    interval: 100\n"),
            ":3: key 'profiler.sampling.interval' is not a key of the KRAKEN design's config (docs/compat.md lists "
            "them)");
  EXPECT_EQ(DesignErrorOf("profiler:\n  sampling:\n    interval_ms: fast\n"),
            ":3: profiler.sampling.interval_ms: 'fast' is not a whole number of milliseconds (at least 1)");
  // Mapped values are checked by kraken's key: 100000 passes of 100ms is longer than agent.ring allows.
  EXPECT_EQ(DesignErrorOf("profiler:\n  sampling:\n    buffer_size: 100000\n"),
            ":3: profiler.sampling.buffer_size (agent.ring): '2h46m40s' is outside 1s .. 1h");
  EXPECT_EQ(DesignErrorOf("profiler:\n  storage:\n    retention_days: -1\n"),
            ":3: profiler.storage.retention_days: '-1' is not a whole number of days");
  EXPECT_EQ(DesignErrorOf("profiler:\n  metrics:\n    gpu:\n      enabled: sometimes\n"),
            ":4: profiler.metrics.gpu.enabled: 'sometimes' is not true or false");
  // One setting written both ways: which line wins would be a guess.
  std::string both = WriteDesignFile("sampling:\n  interval: 1s\nprofiler:\n  sampling:\n    interval_ms: 100\n");
  auto conflict = ResolveConfig({both, {}, {}});
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().message(),
            both + ":5: profiler.sampling.interval_ms sets sampling.interval, which " + both + ":2 sets too");
  // kraken's own keys still take one value.
  EXPECT_EQ(DesignErrorOf("store:\n  path: [a, b]\n"), ":2: key 'store.path' takes one value, not a list");
  EXPECT_EQ(DesignErrorOf("profiler:\n  output:\n    formats:\n      - {a: 1}\n"),
            ":3: key 'profiler.output.formats' takes a list of plain values");
}

TEST(DesignConfigTest, WholeCategoriesAndKrakensOwnGroupNames) {
  std::string path = WriteDesignFile(
      "profiler:\n  metrics:\n    gpu:\n      enabled: false\n    network:\n      enabled: [nvlink, infiniband]\n");
  ConfigInputs inputs;
  inputs.config_flag = path;
  auto config = ResolveConfig(inputs);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_FALSE(config->values.metrics.utilization);
  EXPECT_FALSE(config->values.metrics.power);
  EXPECT_TRUE(config->values.metrics.profiling);  // kraken's group, not named by the design
  EXPECT_FALSE(config->values.metrics.pcie);
  EXPECT_TRUE(config->values.metrics.nvlink);
  ASSERT_EQ(config->warnings.size(), 1u);
  EXPECT_EQ(config->warnings[0], path + ":6: profiler.metrics.network.enabled: 'infiniband' not acted on: not a "
                                        "metric kraken knows here (pcie, nvlink)");
}

TEST(DesignConfigTest, TheTableCoversTheKeysTheDesignDocuments) {
  std::set<std::string> table;
  for (const DesignKeyInfo& key : DesignKeys()) {
    EXPECT_TRUE(table.insert(std::string(key.key)).second) << key.key;
    EXPECT_FALSE(key.note.empty()) << key.key;
  }
  for (const char* key :
       {"sampling.interval_ms", "sampling.buffer_size", "metrics.gpu.enabled", "metrics.memory.enabled",
        "metrics.network.enabled", "analysis.disaggregation.thresholds.compute_memory_ratio",
        "analysis.interference.prediction_model", "storage.backend", "storage.retention_days", "storage.compression",
        "output.formats", "output.destination", "output.realtime_streaming"})
    EXPECT_EQ(table.count(key), 1u) << key;
}

}  // namespace
}  // namespace kraken::config
