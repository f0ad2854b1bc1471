#include "k8s/client/in_cluster_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "base/testing/test_data.h"

namespace kraken::k8s {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

std::string ServiceAccountDir(bool with_token) {
  std::string dir = kraken::testing::MakeTempDir("serviceaccount");
  if (with_token) std::ofstream(dir + "/token") << "eyJhbGciOiJSUzI1NiJ9.test\n";
  std::ofstream(dir + "/namespace") << "kraken-system";
  std::ofstream(dir + "/ca.crt") << "-----BEGIN CERTIFICATE-----\n";
  return dir;
}

TEST(InClusterConfigTest, ReadsEnvironmentAndServiceAccountFiles) {
  std::string dir = ServiceAccountDir(true);
  auto config =
      LoadInClusterConfig(dir, FakeEnv({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->BaseUrl(), "https://10.96.0.1:443");
  EXPECT_EQ(config->token, "eyJhbGciOiJSUzI1NiJ9.test");  // trailing newline trimmed
  EXPECT_EQ(config->namespace_name, "kraken-system");
  EXPECT_EQ(config->ca_file, dir + "/ca.crt");
  auto v6 =
      LoadInClusterConfig(dir, FakeEnv({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}}));
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->BaseUrl(), "https://[fd00::1]:6443");
}

TEST(InClusterConfigTest, OutsideAPodOrWithoutTokenIsNotFound) {
  auto outside = LoadInClusterConfig(ServiceAccountDir(true), FakeEnv({}));
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.status().code(), StatusCode::kNotFound);
  auto no_token =
      LoadInClusterConfig(ServiceAccountDir(false),
                          FakeEnv({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}));
  ASSERT_FALSE(no_token.ok());
  EXPECT_EQ(no_token.status().code(), StatusCode::kNotFound);
  auto bad_port = LoadInClusterConfig(
      ServiceAccountDir(true), FakeEnv({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "https"}}));
  EXPECT_FALSE(bad_port.ok());
}

}  // namespace
}  // namespace kraken::k8s
