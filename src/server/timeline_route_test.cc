// GET /api/v1/profiles/{id}/timeline on the real server over loopback with a real trace:
// the whole-trace count is the profile's kernel count, a window's events are the kernels
// overlapping it (counted here from the imported file), kernels carry their launching op,
// and bad windows get a 400 naming what is wrong.
#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "server/test_server.h"
#include "server/test_upload.h"

namespace kraken::server {
namespace {

using testing::ParseJson;
using testing::ServerWithUpload;

constexpr char kTimelineTrace[] = "kineto/hta/trace_diff/control/control.json.gz";

TEST(TimelineRouteTest, WindowsCountTheKernelsOverlappingThem) {
  auto imported = ImportFile(BuiltinImporters(), kraken::testing::DataPath(kTimelineTrace));
  ASSERT_TRUE(imported.ok());
  const Profile& profile = imported->front();
  ASSERT_GT(profile.kernels.size(), 1000u);
  TimeNs first = profile.kernels.front().start_ns;
  for (const Kernel& k : profile.kernels) first = std::min(first, k.start_ns);

  ServerWithUpload loopback(kTimelineTrace, "trace.json.gz");
  auto& client = loopback.client;
  const std::string base = loopback.Path("/timeline");
  auto whole = client->Get((base + "?width=500").c_str());
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->status, 200) << whole->body.substr(0, 300);
  simdjson::dom::parser parser;
  auto doc = ParseJson(parser, whole->body);
  EXPECT_EQ(int64_t(doc["kernels"]), static_cast<int64_t>(profile.kernels.size()));

  // A 200 µs window 1 ms in: the kernels overlapping it, counted from the file.
  const TimeNs from = first + 1'000'000, to = first + 1'200'000;
  int64_t want = 0;
  for (const Kernel& k : profile.kernels) want += k.start_ns <= to && k.end_ns() >= from;
  auto window = client->Get((base + "?width=4000&start_us=1000&end_us=1200").c_str());
  ASSERT_TRUE(window);
  ASSERT_EQ(window->status, 200);
  simdjson::dom::parser window_parser;
  auto w = ParseJson(window_parser, window->body);
  EXPECT_EQ(int64_t(w["kernels"]), want);
  ASSERT_GT(want, 0);
  int64_t with_op = 0, events = 0;
  for (auto stream : simdjson::dom::array(w["streams"])) {
    EXPECT_FALSE(bool(stream["bucketed"]));
    for (auto e : simdjson::dom::array(stream["events"])) {
      ++events;
      with_op += !std::string_view(e["op"]).empty();
    }
  }
  EXPECT_EQ(events, want);
  EXPECT_GT(with_op, 0) << "kernels carry the CPU op that launched them";

  for (const char* bad : {"?start_us=5", "?start_us=x&end_us=3", "?start_us=9&end_us=3", "?width=0", "?width=9000"}) {
    auto res = client->Get((base + bad).c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << bad << ": " << res->body;
  }
  auto missing = client->Get("/api/v1/profiles/999999/timeline");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

}  // namespace
}  // namespace kraken::server
