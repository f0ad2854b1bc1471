#include "config/config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/testing/test_data.h"
#include "config/config_file.h"

namespace kraken::config {
namespace {

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string path = testing::MakeTempDir("config") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const char kFile[] =
    "# kraken agent on a training node\n"
    "sampling:\n"
    "  interval: 250ms\n"
    "metrics:\n"
    "  processes: false\n"
    "store:\n"
    "  path: /var/lib/kraken/kraken.db\n"
    "  retention: 30d\n"
    "agent:\n"
    "  listen: 0.0.0.0:9500\n"
    "log_level: warn\n";

TEST(ConfigTest, DefaultsWithoutAnySource) {
  auto config = ResolveConfig({});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->values.interval_ns, 100'000'000);
  EXPECT_EQ(config->values.listen, "127.0.0.1:9400");
  EXPECT_EQ(config->values.retention_ns, 7 * 86'400'000'000'000);
  EXPECT_TRUE(config->values.metrics.processes);
  EXPECT_EQ(config->sources.size(), ConfigKeys().size());
  for (const auto& [key, source] : config->sources) EXPECT_EQ(DescribeSource(source), "default") << key;
  EXPECT_EQ(ValueText(config->values, "sampling.interval"), "100ms");
  EXPECT_EQ(ValueText(config->values, "store.retention"), "7d");
}

TEST(ConfigTest, FlagsOverrideEnvironmentWhichOverridesTheFile) {
  std::string path = WriteFile("kraken.yaml", kFile);
  ConfigInputs inputs;
  inputs.environment = {{"KRAKEN_CONFIG", path}, {"KRAKEN_LOG_LEVEL", "debug"}, {"KRAKEN_STORAGE_PATH", "/tmp/k.db"}};
  inputs.flags = {{"store.path", "--db", "/data/flag.db"}};
  auto config = ResolveConfig(inputs);
  ASSERT_TRUE(config.ok()) << config.status().message();
  const EffectiveConfig& c = *config;
  EXPECT_EQ(c.file, path);
  EXPECT_EQ(DescribeSource(c.file_from), "env KRAKEN_CONFIG");
  // File values, each with its line.
  EXPECT_EQ(c.values.interval_ns, 250'000'000);
  EXPECT_EQ(DescribeSource(c.sources.at("sampling.interval")), "file " + path + ":3");
  EXPECT_FALSE(c.values.metrics.processes);
  EXPECT_EQ(DescribeSource(c.sources.at("metrics.processes")), "file " + path + ":5");
  EXPECT_EQ(c.values.retention_ns, 30 * 86'400'000'000'000);
  EXPECT_EQ(c.values.listen, "0.0.0.0:9500");
  EXPECT_EQ(DescribeSource(c.sources.at("agent.listen")), "file " + path + ":10");
  // The environment beats the file; the flag beats both.
  EXPECT_EQ(c.values.log_level, "debug");
  EXPECT_EQ(DescribeSource(c.sources.at("log_level")), "env KRAKEN_LOG_LEVEL");
  EXPECT_EQ(c.values.store_path, "/data/flag.db");
  EXPECT_EQ(DescribeSource(c.sources.at("store.path")), "flag --db");
  // Untouched keys stay defaults.
  EXPECT_TRUE(c.values.metrics.power);
  EXPECT_EQ(DescribeSource(c.sources.at("metrics.power")), "default");

  // --config beats KRAKEN_CONFIG.
  std::string other = WriteFile("other.yaml", "sampling:\n  interval: 1s\n");
  inputs.config_flag = other;
  auto flagged = ResolveConfig(inputs);
  ASSERT_TRUE(flagged.ok()) << flagged.status().message();
  EXPECT_EQ(flagged->values.interval_ns, 1'000'000'000);
  EXPECT_EQ(DescribeSource(flagged->file_from), "flag --config");
  EXPECT_EQ(DescribeSource(flagged->sources.at("sampling.interval")), "file " + other + ":2");
}

std::string ErrorOf(const std::string& yaml) {
  std::string path = WriteFile("bad.yaml", yaml);
  ConfigInputs inputs;
  inputs.config_flag = path;
  auto config = ResolveConfig(inputs);
  EXPECT_FALSE(config.ok());
  std::string message = config.ok() ? "" : config.status().message();
  EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
  return message.substr(std::min(message.size(), path.size()));
}

TEST(ConfigTest, ABadKeyOrValueNamesFileLineAndKey) {
  EXPECT_EQ(ErrorOf("store:\n  path: /x.db\n  retension: 7d\n"),
            ":3: key 'store.retension' is not a kraken setting (`kraken config --print` lists them)");
  EXPECT_EQ(ErrorOf("sampling:\n  interval: 100 parsecs\n"),
            ":2: sampling.interval: '100 parsecs' is not a duration such as 100ms, 10s, 5m, 7d");
  EXPECT_EQ(ErrorOf("\n\nmetrics:\n  power: maybe\n"), ":4: metrics.power: 'maybe' is not true or false");
  EXPECT_EQ(ErrorOf("agent:\n  listen: localhost\n"),
            ":2: agent.listen: 'localhost' is not an address HOST:PORT (no port)");
  EXPECT_EQ(ErrorOf("sampling:\n  interval: 10us\n"), ":2: sampling.interval: '10us' is outside 1ms .. 1d");
  EXPECT_EQ(ErrorOf("log_level: info\nlog_level: debug\n"), ":2: key 'log_level' appears twice (also on line 1)");
  EXPECT_EQ(ErrorOf("store:\n  path:\n    - a\n    - b\n"), ":2: key 'store.path' takes one value, not a list");
  EXPECT_EQ(ErrorOf("output:\n  format:\n"), ":2: key 'output.format' has no value");
  EXPECT_EQ(ErrorOf("- just\n- a list\n"), ":1: the file must be a map of settings (key: value)");
  std::string yaml_error = ErrorOf("sampling:\n  interval: [100ms\n");
  EXPECT_EQ(yaml_error.rfind(":3: not valid YAML: ", 0), 0u) << yaml_error;
}

TEST(ConfigTest, EnvironmentAndFlagErrorsNameTheirSource) {
  ConfigInputs env;
  env.environment = {{"KRAKEN_LOG_LEVEL", "loud"}};
  auto bad_env = ResolveConfig(env);
  ASSERT_FALSE(bad_env.ok());
  EXPECT_EQ(bad_env.status().message(), "KRAKEN_LOG_LEVEL: 'loud' is not one of error, warn, info, debug");
  ConfigInputs flag;
  flag.flags = {{"sampling.interval", "--interval", "soon"}};
  auto bad_flag = ResolveConfig(flag);
  ASSERT_FALSE(bad_flag.ok());
  EXPECT_EQ(bad_flag.status().message(), "--interval: 'soon' is not a duration such as 100ms, 10s, 5m, 7d");
  ConfigInputs missing;
  missing.config_flag = "/nonexistent/kraken.yaml";
  auto no_file = ResolveConfig(missing);
  ASSERT_FALSE(no_file.ok());
  EXPECT_EQ(no_file.status().message(), "/nonexistent/kraken.yaml: cannot read the config file: No such file or directory");
}

TEST(ConfigTest, AnEmptyFileIsAllDefaults) {
  auto settings = ParseConfigText("empty.yaml", "# nothing yet\n");
  ASSERT_TRUE(settings.ok());
  EXPECT_TRUE(settings->empty());
}

TEST(ConfigTest, ListenAddresses) {
  auto v4 = ParseListenAddress("127.0.0.1:9400");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 9400);
  auto v6 = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  auto any = ParseListenAddress(":9400");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->host, "0.0.0.0");
  EXPECT_FALSE(ParseListenAddress("::1:9400").ok());
  EXPECT_FALSE(ParseListenAddress("host:99999").ok());
  EXPECT_FALSE(ParseListenAddress("host:http").ok());
}

}  // namespace
}  // namespace kraken::config
