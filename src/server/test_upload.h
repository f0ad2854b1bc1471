// Test helper over TestServer: a file of the shared data uploaded to the real server over
// loopback (POST /api/v1/profiles), the setup the route tests begin with. Kept beside
// test_server.h rather than in it: that header serves the CLI and store tests too, which
// never upload.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/testing/test_data.h"
#include "server/test_server.h"

namespace kraken::server::testing {

// What POST /api/v1/profiles answered: the stored profile's id (0 when nothing was stored)
// and the body of the answer, for tests that check more of it.
struct UploadAnswer {
  int64_t id = 0;
  std::string body;
};

// The Content-Type a client sends for a file of this name.
inline const char* UploadContentType(std::string_view name) {
  if (name.ends_with(".gz")) return "application/gzip";
  if (name.ends_with(".csv")) return "text/csv";
  return "text/plain";
}

// Uploads the file at `path_on_disk` as `name`; fails the test, naming the file, unless the server
// stored it (201 with an id).
inline UploadAnswer UploadFile(httplib::Client& client, const std::string& path_on_disk, const std::string& name) {
  UploadAnswer answer;
  std::string body = kraken::testing::ReadFileOrDie(path_on_disk);
  // Built by append: GCC 12 flags `std::string(...) + name` with a false -Warray-bounds.
  std::string path = "/api/v1/profiles?name=";
  path += name;
  auto res = client.Post(path, body, UploadContentType(name));
  if (!res) {
    ADD_FAILURE() << "no answer to the upload of " << path_on_disk;
    return answer;
  }
  answer.body = res->body;
  EXPECT_EQ(res->status, 201) << path_on_disk << ": " << res->body.substr(0, 300);
  if (res->status != 201) return answer;
  simdjson::dom::parser parser;
  EXPECT_EQ(ParseJson(parser, res->body)["id"].get(answer.id), simdjson::SUCCESS) << path_on_disk;
  return answer;
}

// Uploads `relative` (a file of the shared data) as `name`, as UploadFile does.
inline UploadAnswer UploadDataFile(httplib::Client& client, const std::string& relative, const std::string& name) {
  return UploadFile(client, kraken::testing::DataPath(relative), name);
}

// "/api/v1/profiles/{id}" followed by `rest` (a route and a query, e.g. "/analysis?top=3").
inline std::string ProfilePath(int64_t id, std::string_view rest = "") {
  std::string path = "/api/v1/profiles/";
  path += std::to_string(id);
  path += rest;
  return path;
}

// A real server with one file of the shared data uploaded, and the client that uploaded it.
// Tests that need the upload to have worked ASSERT_GT(upload.id, 0) first.
struct ServerWithUpload {
  ServerWithUpload(const std::string& relative, const std::string& name, ServeOptions options = {})
      : server(std::move(options)), client(server.Client()), upload(UploadDataFile(*client, relative, name)) {}

  // The uploaded profile's route `rest` (see ProfilePath).
  std::string Path(std::string_view rest = "") const { return ProfilePath(upload.id, rest); }

  TestServer server;
  std::unique_ptr<httplib::Client> client;
  UploadAnswer upload;
};

}  // namespace kraken::server::testing
