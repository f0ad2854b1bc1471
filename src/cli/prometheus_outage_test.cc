// An outage of the Prometheus that `kraken serve` reads is not a kraken bug: the HTTP API
// answers 503 "unavailable" with Retry-After and a one-line message naming the URL and what
// failed, and the server stays up. Checked against a real Prometheus on loopback that is
// stopped mid-test, a port nothing listens on, and a socket that never answers (timeout).
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <simdjson.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/prometheus_test_server.h"
#include "promql/prometheus_client.h"
#include "server/test_server.h"

namespace kraken {
namespace {

// The 503 of an outage: code, Retry-After, one line naming `url` and containing `what`.
void ExpectOutageAnswer(const httplib::Result& answer, const std::string& url, const std::string& what) {
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 503) << answer->body;
  EXPECT_EQ(answer->get_header_value("Retry-After"), "5");
  simdjson::dom::parser parser;
  simdjson::dom::element error = parser.parse(answer->body)["error"];
  EXPECT_EQ(std::string_view(error["code"]), "unavailable") << answer->body;
  std::string message{std::string_view(error["message"])};
  // After the context of the failed step ("range 3600 s: "), the URL and what failed.
  EXPECT_NE(message.find("Prometheus " + url + ": /api/v1/"), std::string::npos) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

httplib::Result GetFromServe(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  return client.Get(path);
}

TEST(PrometheusOutageTest, StoppedPrometheusIsUnavailableAndServeStaysUp) {
  std::string dir = testing::MakeTempDir("prometheus_outage_stop");
  testing::PrometheusServer prometheus("", dir);
  ASSERT_TRUE(prometheus.ok()) << prometheus.error();
  int port = testing::FreeLoopbackPort();
  testing::ChildProcess serve({KRAKEN_BINARY_PATH, "serve", "--host", "127.0.0.1", "--port", std::to_string(port),
                               "--db", dir + "/api.db", "--prometheus", prometheus.url()},
                              dir + "/serve.log");
  ASSERT_FALSE(serve.WaitForLog("listening on", std::chrono::seconds(20)).empty()) << serve.Log();
  auto up = GetFromServe(port, "/api/v1/cluster?range=1h");
  ASSERT_TRUE(up) << serve.Log();
  EXPECT_EQ(up->status, 200) << up->body;

  prometheus.Stop();
  ExpectOutageAnswer(GetFromServe(port, "/api/v1/cluster?range=1h"), prometheus.url(), "connection refused");
  auto health = GetFromServe(port, "/health");
  ASSERT_TRUE(health) << serve.Log();
  EXPECT_EQ(health->status, 200);
  EXPECT_TRUE(serve.running()) << serve.Log();
}

TEST(PrometheusOutageTest, ClosedPortBehindBudgetMetricsIsUnavailable) {
  std::string dir = testing::MakeTempDir("prometheus_outage_budget");
  std::ofstream(dir + "/budgets.csv") << "team,monthly_usd\nml,1000\n";
  std::string nobody = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  server::ServeOptions options;
  options.budget_prometheus = nobody;
  options.budgets_file = dir + "/budgets.csv";
  options.budget_range = "7d";
  options.budget_gpu_model = "a100-40gb-sxm";
  server::testing::TestServer serve(options);
  ExpectOutageAnswer(serve.Client()->Get("/api/v1/cost/budgets/metrics"), nobody, "connection refused");
}

// A listening socket that is never accepted: the connection completes in the kernel's
// backlog and the request is sent, but no answer comes. The client's 1 s read limit ends it.
TEST(PrometheusOutageTest, PrometheusThatNeverAnswersIsUnavailableAfterTheTimeout) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  auto client = promql::PrometheusClient::Create(url, 1);
  ASSERT_TRUE(client.ok());
  auto started = std::chrono::steady_clock::now();
  auto answer = (*client)->QueryRange("up", 0, 60, 15);
  double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ::close(fd);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable) << answer.status().message();
  EXPECT_NE(answer.status().message().find(url), std::string::npos) << answer.status().message();
  EXPECT_NE(answer.status().message().find("timed out after 1 s"), std::string::npos) << answer.status().message();
  EXPECT_LT(waited_s, 10.0);
}

// What Prometheus itself answers: 503 with its error document for a query that timed out
// (Unavailable, its errorType and message kept), 400 for a bad query (InvalidInput), and
// 404 for a wrong path prefix (IoError: a setup fault, not an outage). The 503 comes from
// a loopback HTTP server that answers as Prometheus does: a real one needs a query slow
// enough to pass --query.timeout.
TEST(PrometheusOutageTest, FiveHundredsAreUnavailableFourHundredsAreNot) {
  httplib::Server upstream;
  upstream.Post("/api/v1/query_range", [](const httplib::Request&, httplib::Response& res) {
    res.status = 503;
    res.set_content(R"({"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"})",
                    "application/json");
  });
  upstream.Post("/bad/api/v1/query_range", [](const httplib::Request&, httplib::Response& res) {
    res.status = 400;
    res.set_content(R"({"status":"error","errorType":"bad_data","error":"parse error"})", "application/json");
  });
  int port = upstream.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { upstream.listen_after_bind(); });
  for (int i = 0; i < 200 && !upstream.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::string url = "http://127.0.0.1:" + std::to_string(port);

  auto timed_out = (*promql::PrometheusClient::Create(url, 5))->QueryRange("up", 0, 60, 15);
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(timed_out.status().message(),
            "Prometheus " + url + ": /api/v1/query_range: HTTP 503: timeout: query timed out in expression evaluation");
  auto bad_query = (*promql::PrometheusClient::Create(url + "/bad", 5))->QueryRange("up{", 0, 60, 15);
  ASSERT_FALSE(bad_query.ok());
  EXPECT_EQ(bad_query.status().code(), StatusCode::kInvalidInput) << bad_query.status().message();
  auto wrong_prefix = (*promql::PrometheusClient::Create(url + "/nowhere", 5))->Series({"up"}, 0, 60);
  ASSERT_FALSE(wrong_prefix.ok());
  EXPECT_EQ(wrong_prefix.status().code(), StatusCode::kIoError) << wrong_prefix.status().message();
  EXPECT_NE(wrong_prefix.status().message().find("HTTP 404"), std::string::npos) << wrong_prefix.status().message();
  upstream.stop();
  serving.join();
}

}  // namespace
}  // namespace kraken
