// Test helper: a real KrakenServer on 127.0.0.1 and a free port, with a fresh store in
// the test's temp dir and the shared data as reference measurements, plus a client.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <memory>
#include <string>
#include <thread>

#include "base/testing/test_data.h"
#include "server/kraken_server.h"

namespace kraken::server::testing {

// The real trace the server tests import, and its file name.
inline constexpr char kTrace[] = "kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
inline constexpr char kTraceName[] = "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";

// A response body parsed as JSON (a failure names the body's start).
inline simdjson::dom::element ParseJson(simdjson::dom::parser& parser, const std::string& body) {
  simdjson::dom::element root;
  EXPECT_EQ(parser.parse(body).get(root), simdjson::SUCCESS) << body.substr(0, 300);
  return root;
}

class TestServer {
 public:
  // `keep_host`: listen on options.host (e.g. 0.0.0.0, still reached over loopback).
  explicit TestServer(ServeOptions options = {}, bool keep_host = false) {
    if (!keep_host) options.host = "127.0.0.1";
    options.port = 0;
    if (options.db_path.empty()) options.db_path = kraken::testing::MakeTempDir("serve") + "/kraken.db";
    if (options.reference_data_dir.empty()) options.reference_data_dir = kraken::testing::DataDir();
    options_ = options;
    auto server = KrakenServer::Create(options);
    if (!server.ok()) {
      ADD_FAILURE() << server.status().message();
      return;
    }
    server_ = std::move(*server);
    auto port = server_->Bind();
    if (!port.ok()) {
      ADD_FAILURE() << port.status().message();
      return;
    }
    port_ = *port;
    thread_ = std::thread([this] { EXPECT_TRUE(server_->Listen().ok()); });
    // The first answer proves the accept loop runs, so Stop() cannot come before it.
    auto client = Client();
    auto health = client->Get("/health");
    EXPECT_TRUE(health && health->status == 200);
  }
  ~TestServer() {
    if (server_ != nullptr) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  const ServeOptions& options() const { return options_; }
  std::unique_ptr<httplib::Client> Client() const {
    auto client = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client->set_read_timeout(60, 0);
    return client;
  }

 private:
  ServeOptions options_;
  std::unique_ptr<KrakenServer> server_;
  std::thread thread_;
  int port_ = 0;
};

// The error code of an error response ("" when the body has none).
inline std::string ErrorCode(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body).get(root) != simdjson::SUCCESS) return "";
  std::string_view code;
  if (root["error"]["code"].get(code) != simdjson::SUCCESS) return "";
  return std::string(code);
}

}  // namespace kraken::server::testing
