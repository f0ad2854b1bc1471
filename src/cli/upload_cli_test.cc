// Profiles travel to the central API (docs/upload.md), end to end with the real binaries
// over loopback: `kraken serve` with a token, `kraken upload` and `kraken profile
// --upload-to` (on the replayed H100 capture), the server killed with SIGKILL while it
// imports an upload and restarted on the same database; every profile lands exactly once.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"
#include "cli/upload_race_testing.h"

namespace kraken {
namespace {

struct UploadApi {
  std::string dir;
  int port = 0;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
  std::unique_ptr<testing::ChildProcess> Start(const std::string& log_name) const {
    // Its uploads land in <dir>/tmp first (TMPDIR): the test sees a request in flight there.
    std::filesystem::create_directories(dir + "/tmp");
    auto serve = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{"/usr/bin/env", "TMPDIR=" + dir + "/tmp", KRAKEN_BINARY_PATH, "serve", "--host", "127.0.0.1", "--port", std::to_string(port),
                                 "--db", dir + "/api.db", "--token-file", dir + "/token"},
        dir + "/" + log_name);
    EXPECT_FALSE(serve->WaitForLog("listening on", std::chrono::seconds(20)).empty()) << serve->Log();
    return serve;
  }
  std::string Flags() const {
    return "--upload-to " + url() + " --token-file " + dir + "/token --upload-spool " + dir + "/spool";
  }
};

// The stored profiles' ids and upload keys, from the API.
std::multiset<std::string> StoredUploadSources(const UploadApi& api, size_t* count) {
  httplib::Client client("127.0.0.1", api.port);
  auto answer = client.Get("/api/v1/profiles");
  EXPECT_TRUE(answer && answer->status == 200);
  std::multiset<std::string> sources;
  if (!answer) return sources;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(answer->body);
  for (simdjson::dom::element p : doc["profiles"].get_array()) sources.insert(std::string(p["source"].get_string().value()));
  *count = sources.size();
  return sources;
}

// Waits until the server has an upload in flight (its temporary folder exists).
bool UploadInFlight(const std::string& tmp, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (const auto& entry : std::filesystem::directory_iterator(tmp))
      if (entry.path().filename().string().rfind("kraken-upload-", 0) == 0) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return false;
}

size_t SpooledUploads(const std::string& spool) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(spool))
    n += entry.path().extension() == ".upload";
  return n;
}

TEST(UploadCliTest, NothingIsLostOrDoubledWhenTheApiIsKilledAndRestartedMidStream) {
  UploadApi api;
  api.dir = testing::MakeTempDir("upload-cli");
  api.port = testing::FreeLoopbackPort();
  std::ofstream(api.dir + "/token") << "s3cret-upload-token\n";
  auto serve = api.Start("serve1.log");

  // One upload, then the same file again: the server answers 200 with the first ids.
  std::string small = testing::DataPath("kineto/hta/trace_filter/sampled_rank-0.json.gz");
  RunResult first = RunKraken("upload " + api.Flags() + " " + small);
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("1 sent, 0 already there, 0 waiting"), std::string::npos) << first.err;
  RunResult again = RunKraken("upload " + api.Flags() + " " + small);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("0 sent, 1 already there, 0 waiting"), std::string::npos) << again.err;

  // A large trace (86.9 MB decompressed: seconds of import); the server is killed while
  // it imports, so the client never hears whether it was stored. It retries.
  std::string large = testing::DataPath("kineto/hta/mtia_inference_trace/mtia_inference_rank_0.json.gz");
  testing::ChildProcess sender({KRAKEN_BINARY_PATH, "upload", "--upload-to", api.url(), "--token-file",
                                api.dir + "/token", "--upload-spool", api.dir + "/spool", "--upload-retry-for", "60s",
                                large},
                               api.dir + "/sender.log");
  EXPECT_TRUE(UploadInFlight(api.dir + "/tmp", std::chrono::seconds(20)));
  EXPECT_EQ(serve->Stop(SIGKILL, std::chrono::seconds(5)), -1);
  std::filesystem::remove_all(api.dir + "/tmp");  // what the killed server left

  // While the API is down: two profiled runs spool their profiles and say so.
  std::string replay = std::string("KRAKEN_NVML_LIBRARY=") + KRAKEN_NVML_REPLAY_LIBRARY +
                       " KRAKEN_NVML_REPLAY=" + testing::SourceDir() + "/tests/fixtures/nvml/h100.nvml ";
  for (int run = 0; run < 2; ++run) {
    RunResult profiled = RunKraken("profile --samples 3 --interval 50ms --no-store --upload-retry-for 0 " +
                                       api.Flags() + " -- sleep 0.3",
                                   replay);
    EXPECT_EQ(profiled.exit_code, 0) << profiled.err;
    EXPECT_NE(profiled.err.find("they stay in " + api.dir + "/spool for the next try"), std::string::npos)
        << profiled.err;
  }
  EXPECT_GE(SpooledUploads(api.dir + "/spool"), 2u);

  // The API comes back on the same database: the sender's retries and one drain deliver all.
  serve = api.Start("serve2.log");
  EXPECT_EQ(sender.Stop(0, std::chrono::seconds(90)), 0) << sender.Log();
  // It was refused by the dead server at least once, then delivered (stored or found stored).
  EXPECT_NE(sender.Log().find("1 sent, 0 already there, 0 waiting"), std::string::npos) << sender.Log();
  EXPECT_EQ(sender.Log().find("(1 POSTs)"), std::string::npos) << sender.Log();
  RunResult drained = RunKraken("upload " + api.Flags());
  EXPECT_EQ(drained.exit_code, 0) << drained.err;
  EXPECT_EQ(SpooledUploads(api.dir + "/spool"), 0u);

  size_t count = 0;
  std::multiset<std::string> sources = StoredUploadSources(api, &count);
  EXPECT_EQ(count, 4u);  // the small trace once, the large once, two profiled runs
  EXPECT_EQ(sources.count("sleep 0.3"), 2u);
  std::printf("sender: %s\n", sender.Log().c_str());
}

TEST(UploadCliTest, FullSpoolRefusesWithAWarningAndKeepsWhatWaits) {
  std::string dir = testing::MakeTempDir("upload-full");
  int port = testing::FreeLoopbackPort();  // nobody listens: every upload stays
  std::ofstream(dir + "/kraken.yaml") << "upload:\n  url: http://127.0.0.1:" << port << "\n  spool: " << dir
                                      << "/spool\n  spool_max_bytes: 200000\n  retry_for: 0s\n";
  std::string a = testing::DataPath("kineto/hta/trace_filter/sampled_rank-0.json.gz");   // 124,247 B
  std::string b = testing::DataPath("kineto/hta/trace_filter/sampled_rank-1.json.gz");   // 119,799 B
  RunResult queued = RunKraken("upload --config " + dir + "/kraken.yaml " + a);
  EXPECT_EQ(queued.exit_code, 1) << queued.err;
  EXPECT_NE(queued.err.find("1 waiting"), std::string::npos) << queued.err;
  RunResult full = RunKraken("upload --config " + dir + "/kraken.yaml " + b);
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_NE(full.err.find("upload spool " + dir + "/spool is full: 124247 bytes of its 200000 wait for the API; "
                          "sampled_rank-1.json.gz (119799 bytes) was not queued"),
            std::string::npos)
      << full.err;
  EXPECT_EQ(SpooledUploads(dir + "/spool"), 1u);

  // Bad flags fail before any work: one line, exit 2.
  ExpectOneLineError(RunKraken("upload --upload-to ftp://x " + a), "--upload-to 'ftp://x'");
  ExpectOneLineError(RunKraken("upload --upload-to http://127.0.0.1:1 --token-file " + dir + "/none " + a),
                     dir + "/none");
}

// 50 clients at once: ten real files, each sent by five clients at the same moment. The
// server stores each body once; the others are told it is there (200), none is lost.
TEST(UploadCliTest, FiftyConcurrentClientsLandWithoutLossOrDuplicates) {
  UploadApi api;
  api.dir = testing::MakeTempDir("upload-fifty");
  api.port = testing::FreeLoopbackPort();
  std::ofstream(api.dir + "/token") << "fifty-token\n";
  auto serve = api.Start("serve.log");
  testing::UploadRaceOutcome race = testing::RunFiftyUploadClients({api.url()}, api.dir);
  EXPECT_EQ(race.sent, 10);
  EXPECT_EQ(race.already, 40);
  size_t count = 0;
  std::multiset<std::string> sources = StoredUploadSources(api, &count);
  EXPECT_EQ(count, 10u);
  for (const std::string& file : testing::TenRealUploadFiles())
    EXPECT_EQ(sources.count(std::filesystem::path(file).filename().string()), 1u);
  std::printf("50 concurrent uploads of 10 distinct real files: %d stored, %d already there, %.2f s\n", race.sent,
              race.already, race.seconds);
}

// The sampling passes the agent on `port` has made (kraken_agent_samples_total); -1 when
// its /metrics does not answer.
int64_t AgentPasses(int port) {
  httplib::Client client("127.0.0.1", port);
  auto response = client.Get("/metrics");
  if (!response || response->status != 200) return -1;
  const std::string& text = response->body;
  size_t at = text.find("\nkraken_agent_samples_total");
  if (at == std::string::npos) return -1;
  at = text.find(' ', at + 1);
  return at == std::string::npos ? -1 : std::atoll(text.c_str() + at + 1);
}

// The agent's committed windows (one per --commit-interval) reach the API, the last one
// at a clean stop included.
TEST(UploadCliTest, TheAgentShipsEachCommittedWindow) {
  UploadApi api;
  api.dir = testing::MakeTempDir("upload-agent");
  api.port = testing::FreeLoopbackPort();
  std::ofstream(api.dir + "/token") << "agent-token\n";
  auto serve = api.Start("serve.log");
  ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100.nvml").c_str(), 1);
  testing::ChildProcess agent({KRAKEN_BINARY_PATH, "agent", "--listen", "127.0.0.1:0", "--nvml-library",
                               KRAKEN_NVML_REPLAY_LIBRARY, "--interval", "100ms", "--commit-interval", "1s", "--db",
                               api.dir + "/node.db", "--upload-to", api.url(), "--token-file", api.dir + "/token",
                               "--upload-spool", api.dir + "/spool"},
                              api.dir + "/agent.log");
  const std::string seen = agent.WaitForLog("store: committed profile 3", std::chrono::seconds(30));
  ASSERT_FALSE(seen.empty()) << agent.Log();
  // Two more passes, so that the stop finds passes in the live profile and commits it (a
  // profile with none is dropped): either the fourth profile is committed at the stop, or
  // a rotation committed it before.
  const size_t at_port = seen.find("serving http://127.0.0.1:");
  ASSERT_NE(at_port, std::string::npos) << seen;
  const int agent_port = std::atoi(seen.c_str() + at_port + std::strlen("serving http://127.0.0.1:"));
  const int64_t passes = AgentPasses(agent_port);
  ASSERT_GE(passes, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (AgentPasses(agent_port) < passes + 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(agent.Stop(SIGTERM, std::chrono::seconds(20)), 0) << agent.Log();
  std::string log = agent.Log();
  size_t at = log.find("profiles committed");
  ASSERT_NE(at, std::string::npos) << log;
  size_t start = log.rfind(' ', at - 2);
  size_t committed = std::stoul(log.substr(start + 1, at - start - 2));
  EXPECT_GE(committed, 4u);
  size_t count = 0;
  StoredUploadSources(api, &count);
  EXPECT_EQ(count, committed) << log;  // each window once, the last one at the stop
  EXPECT_EQ(SpooledUploads(api.dir + "/spool"), 0u);
}

}  // namespace
}  // namespace kraken
