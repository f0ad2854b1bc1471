// The extender's server under slow clients, over loopback (issue 15: 10 slow clients
// starved it): their heads and bodies wait in the connection front, so kube-scheduler's
// filter calls and the health check still answer at once; a GPU count that is not a
// whole number in range is a 400 with one line.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

#include "base/testing/slow_clients.h"
#include "k8s/extender/extender_server.h"
#include "server/guarded_server.h"

namespace kraken::k8s {
namespace {

using kraken::testing::ProbeSeconds;
using kraken::testing::SlowClients;

constexpr char kSlowPod[] = R"({"metadata":{"name":"p","namespace":"ml","annotations":{}},)"
                            R"("spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"GPUS"}}}]}})";

std::string FilterArgs(const std::string& gpus) {
  std::string pod = kSlowPod;
  pod.replace(pod.find("GPUS"), 4, gpus);
  return R"({"pod":)" + pod + R"(,"nodenames":["gpu-a","gpu-b"]})";
}

// The extender as `kraken extender` serves it, on a free loopback port.
class GuardedExtender {
 public:
  GuardedExtender() : server_(ExtenderConnectionLimits("/kraken")) {
    HardenExtenderServer(server_, "127.0.0.1");
    AddExtenderRoutes(server_, "/kraken");
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~GuardedExtender() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  server::GuardedServer server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(ExtenderSlowClientsTest, TenSlowClientsDoNotStarveFilterOrHealth) {
  GuardedExtender extender;
  SlowClients heads(extender.port(), 10, "POST /kraken/filter HTTP/1.1\r\nHost: x\r\nX-Slow: ", 'a');
  SlowClients bodies(extender.port(), 10,
                     "POST /kraken/filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Content-Length: 50000\r\n\r\n{",
                     ' ');
  ASSERT_EQ(heads.connected() + bodies.connected(), 20);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int i = 0; i < 3; ++i) {
    int status = 0;
    EXPECT_LT(ProbeSeconds(extender.port(), "/kraken/healthz", &status), 2.0) << i;
    EXPECT_EQ(status, 200) << i;
  }
  httplib::Client client("127.0.0.1", extender.port());
  client.set_read_timeout(5, 0);
  auto started = std::chrono::steady_clock::now();
  auto filter = client.Post("/kraken/filter", FilterArgs("1"), "application/json");
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->status, 200) << filter->body;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
}

TEST(ExtenderSlowClientsTest, GpuCountsOutOfRangeAre400WithOneLine) {
  GuardedExtender extender;
  httplib::Client client("127.0.0.1", extender.port());
  for (const char* gpus : {"inf", "nan", "1e999", "-1", "9223372036854775807"}) {
    auto res = client.Post("/kraken/filter", FilterArgs(gpus), "application/json");
    ASSERT_TRUE(res) << gpus;
    EXPECT_EQ(res->status, 400) << gpus << ": " << res->body;
    EXPECT_NE(res->body.find("nvidia.com/gpu must be a whole count in [0, 1000000]"), std::string::npos) << res->body;
    EXPECT_EQ(res->body.find("\\n"), std::string::npos) << res->body;
  }
}

}  // namespace
}  // namespace kraken::k8s
