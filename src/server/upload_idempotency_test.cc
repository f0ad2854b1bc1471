// POST /api/v1/profiles is idempotent (docs/upload.md): the body's SHA-256 keys the upload,
// the same body again answers 200 with the first ids, and an Idempotency-Key that is not
// the body's digest is refused. Real capture, real server over loopback.
#include <gtest/gtest.h>

#include "base/sha256.h"
#include "server/test_server.h"

namespace kraken::server {
namespace {

using testing::ParseJson;
using testing::TestServer;

constexpr char kIdempotentCapture[] = "nvidia-smi/capture__linux-x86_64__nvidia-l40s__595.80.txt";

TEST(UploadIdempotencyTest, TheSameBodyIsStoredOnceAndAWrongKeyIsRefused) {
  TestServer server;
  auto client = server.Client();
  std::string body = kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kIdempotentCapture));
  std::string key = Sha256Hex(body);

  auto wrong = client->Post("/api/v1/profiles?name=l40s.txt", {{"Idempotency-Key", "sha256:" + std::string(64, '0')}},
                            body, "text/plain");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 400) << wrong->body;
  EXPECT_NE(wrong->body.find("is not the body's SHA-256 " + key), std::string::npos) << wrong->body;

  auto first = client->Post("/api/v1/profiles?name=l40s.txt", {{"Idempotency-Key", "sha256:" + key}}, body,
                            "text/plain");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 201) << first->body;
  auto again = client->Post("/api/v1/profiles?name=other-name.txt", body, "text/plain");  // no key: the same digest
  ASSERT_TRUE(again);
  ASSERT_EQ(again->status, 200) << again->body;

  simdjson::dom::parser p1, p2;
  auto stored = ParseJson(p1, first->body);
  auto repeated = ParseJson(p2, again->body);
  EXPECT_EQ(int64_t(stored["id"]), int64_t(repeated["id"]));
  EXPECT_EQ(std::string_view(stored["sha256"]), key);
  EXPECT_FALSE(bool(stored["duplicate"]));
  EXPECT_TRUE(bool(repeated["duplicate"]));
  EXPECT_EQ(std::string_view(repeated["source"]), "l40s.txt");  // what was stored the first time

  auto list = client->Get("/api/v1/profiles");
  ASSERT_TRUE(list);
  simdjson::dom::parser p3;
  EXPECT_EQ(int64_t(ParseJson(p3, list->body)["count"]), 1);
}

}  // namespace
}  // namespace kraken::server
