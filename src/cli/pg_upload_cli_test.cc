// The central store on PostgreSQL (docs/store.md "PostgreSQL"), end to end with the real
// binaries over loopback: two `kraken serve` replicas on one real PostgreSQL server
// (pg_test_server.h) serve the same profiles, and 50 concurrent `kraken upload` clients,
// half sent to each replica, land each body exactly once.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"
#include "cli/upload_race_testing.h"
#include "store/pg/pg_db.h"
#include "store/pg/pg_test_server.h"

namespace kraken {
namespace {

// One PostgreSQL server with a fresh database, and the shared token.
struct PgApiSetup {
  std::string dir;
  store::pg::testing::PgTestServer server;
  std::string db_url;

  void Start(const std::string& name) {
    dir = testing::MakeTempDir(name);
    std::ofstream(dir + "/token") << name << "-token\n";
    std::string bin = store::pg::testing::FindPostgresBin();
    ASSERT_FALSE(bin.empty()) << "PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb): "
                                 "scripts/install-deps.sh installs it";
    Status started = server.Start(bin, dir);
    ASSERT_TRUE(started.ok()) << started.message();
    auto admin = store::pg::PgDb::Connect(server.url());
    ASSERT_TRUE(admin.ok()) << admin.status().message();
    ASSERT_TRUE((*admin)->Exec("CREATE DATABASE kraken_api").ok());
    db_url = server.url("kraken_api");
  }
};

// `kraken serve --db postgresql://...` on a free loopback port; with `url_from_env`, the URL
// in KRAKEN_STORAGE_PATH and no --db instead (deploy/kubernetes/api-deployment.yaml's form).
struct PgReplica {
  int port = 0;
  std::unique_ptr<testing::ChildProcess> process;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

PgReplica StartPgReplica(const PgApiSetup& setup, const std::string& name, bool url_from_env = false) {
  PgReplica replica;
  replica.port = testing::FreeLoopbackPort();
  std::vector<std::string> argv = {KRAKEN_BINARY_PATH, "serve",      "--host", "127.0.0.1", "--port",
                                   std::to_string(replica.port), "--token-file", setup.dir + "/token"};
  if (!url_from_env) argv.insert(argv.end(), {"--db", setup.db_url});
  if (url_from_env) ::setenv("KRAKEN_STORAGE_PATH", setup.db_url.c_str(), 1);  // the child inherits it
  replica.process = std::make_unique<testing::ChildProcess>(argv, setup.dir + "/" + name + ".log");
  if (url_from_env) ::unsetenv("KRAKEN_STORAGE_PATH");
  EXPECT_FALSE(replica.process->WaitForLog("listening on", std::chrono::seconds(30)).empty())
      << replica.process->Log();
  return replica;
}

// id -> source of every profile a replica lists.
std::map<int64_t, std::string> ListedProfiles(const PgReplica& replica) {
  httplib::Client client("127.0.0.1", replica.port);
  auto answer = client.Get("/api/v1/profiles");
  EXPECT_TRUE(answer && answer->status == 200);
  std::map<int64_t, std::string> listed;
  if (!answer || answer->status != 200) return listed;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(answer->body);
  for (simdjson::dom::element p : doc["profiles"].get_array())
    listed[p["id"].get_int64().value()] = std::string(p["source"].get_string().value());
  return listed;
}

TEST(PgUploadCliTest, TwoReplicasOnOneDatabaseServeTheSameProfiles) {
  PgApiSetup setup;
  ASSERT_NO_FATAL_FAILURE(setup.Start("pg-replicas"));
  PgReplica a = StartPgReplica(setup, "serve-a");
  PgReplica b = StartPgReplica(setup, "serve-b", /*url_from_env=*/true);
  // B found the database through the environment (its log shows the URL without password).
  EXPECT_NE(b.process->Log().find("(store " + setup.db_url + ")"), std::string::npos) << b.process->Log();
  std::string file = testing::DataPath("kineto/hta/trace_filter/sampled_rank-0.json.gz");
  std::string flags = " --token-file " + setup.dir + "/token --upload-spool " + setup.dir + "/spool ";
  RunResult to_a = RunKraken("upload --upload-to " + a.url() + flags + file);
  EXPECT_EQ(to_a.exit_code, 0) << to_a.err;
  EXPECT_NE(to_a.err.find("1 sent, 0 already there, 0 waiting"), std::string::npos) << to_a.err;
  // B stores nothing new: the body's key is in the shared database.
  RunResult to_b = RunKraken("upload --upload-to " + b.url() + flags + file);
  EXPECT_EQ(to_b.exit_code, 0) << to_b.err;
  EXPECT_NE(to_b.err.find("0 sent, 1 already there, 0 waiting"), std::string::npos) << to_b.err;

  std::map<int64_t, std::string> from_a = ListedProfiles(a), from_b = ListedProfiles(b);
  ASSERT_EQ(from_b.size(), 1u);
  EXPECT_EQ(from_b, from_a);
  EXPECT_EQ(from_b.begin()->second, "sampled_rank-0.json.gz");
  // B loads and analyses the profile A stored.
  httplib::Client client("127.0.0.1", b.port);
  auto analysis = client.Get(("/api/v1/profiles/" + std::to_string(from_b.begin()->first) + "/analysis").c_str());
  ASSERT_TRUE(analysis);
  EXPECT_EQ(analysis->status, 200) << analysis->body;
  EXPECT_NE(analysis->body.find("kernels"), std::string::npos) << analysis->body.substr(0, 400);
  // The command line reads the same database.
  RunResult listed = RunKraken("list --db " + setup.db_url);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("sampled_rank-0.json.gz"), std::string::npos) << listed.out;
}

// PostgreSQL stopped under a running `kraken serve --db` (as a crash: pg_ctl -m immediate)
// and started again on the same port and data folder. While it is down a request fails
// cleanly: a 5xx with a one-line error, and the server keeps serving; once it is back the
// pool drops the connections it lost and the same process answers again, with the data.
TEST(PgUploadCliTest, ServeRecoversWhenPostgresRestartsUnderIt) {
  PgApiSetup setup;
  ASSERT_NO_FATAL_FAILURE(setup.Start("pg-restart"));
  PgReplica api = StartPgReplica(setup, "serve");
  std::string flags = " --token-file " + setup.dir + "/token --upload-spool " + setup.dir + "/spool ";
  RunResult sent = RunKraken("upload --upload-to " + api.url() + flags +
                             testing::DataPath("kineto/hta/trace_filter/sampled_rank-0.json.gz"));
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  ASSERT_EQ(ListedProfiles(api).size(), 1u);
  const int port_before = setup.server.port();

  ASSERT_TRUE(setup.server.Stop().ok());
  httplib::Client client("127.0.0.1", api.port);
  std::string while_down;  // the first failure, for the log
  for (int i = 0; i < 3; ++i) {
    auto down = client.Get("/api/v1/profiles");
    ASSERT_TRUE(down) << "the server stopped answering while PostgreSQL was down: " << api.process->Log();
    EXPECT_GE(down->status, 500) << down->body;
    EXPECT_LT(down->status, 600) << down->body;
    std::string body = down->body;
    while (!body.empty() && body.back() == '\n') body.pop_back();
    EXPECT_FALSE(body.empty());
    EXPECT_EQ(body.find('\n'), std::string::npos) << "not one line: " << down->body;
    if (while_down.empty()) while_down = std::to_string(down->status) + " " + body;
  }

  ASSERT_TRUE(setup.server.Restart().ok());
  EXPECT_EQ(setup.server.port(), port_before);
  // At most one failed request per connection the pool held when PostgreSQL went away.
  int failed_after_restart = 0;
  httplib::Result back = client.Get("/api/v1/profiles");
  while (back && back->status >= 500 && failed_after_restart < 16) {
    ++failed_after_restart;
    back = client.Get("/api/v1/profiles");
  }
  ASSERT_TRUE(back) << api.process->Log();
  EXPECT_EQ(back->status, 200) << back->body;
  for (int i = 0; i < 5; ++i) {
    std::map<int64_t, std::string> listed = ListedProfiles(api);
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed.begin()->second, "sampled_rank-0.json.gz");
  }
  std::printf("PostgreSQL down under kraken serve: %s\nrestarted: %d request(s) failed before one succeeded\n",
              while_down.c_str(), failed_after_restart);
}

// 50 agents at once, 25 to each replica: ten real files, each sent by five clients. Each
// body is stored once across both replicas; the others are told it is there (200).
TEST(PgUploadCliTest, FiftyConcurrentAgentsOnTwoReplicasLandWithoutLossOrDuplicates) {
  PgApiSetup setup;
  ASSERT_NO_FATAL_FAILURE(setup.Start("pg-fifty"));
  std::vector<PgReplica> replicas;
  replicas.push_back(StartPgReplica(setup, "serve-a"));
  replicas.push_back(StartPgReplica(setup, "serve-b"));
  testing::UploadRaceOutcome race = testing::RunFiftyUploadClients({replicas[0].url(), replicas[1].url()}, setup.dir);
  EXPECT_EQ(race.sent, 10);
  EXPECT_EQ(race.already, 40);
  std::map<int64_t, std::string> from_a = ListedProfiles(replicas[0]), from_b = ListedProfiles(replicas[1]);
  EXPECT_EQ(from_a, from_b);
  std::multiset<std::string> sources;
  for (const auto& [id, source] : from_b) sources.insert(source);
  EXPECT_EQ(sources.size(), 10u);
  for (const std::string& file : testing::TenRealUploadFiles())
    EXPECT_EQ(sources.count(std::filesystem::path(file).filename().string()), 1u);
  std::printf("PostgreSQL, 2 replicas, 50 concurrent uploads of 10 distinct real files: %d stored, %d already there, "
              "%zu profiles listed, %.2f s\n",
              race.sent, race.already, sources.size(), race.seconds);
}

}  // namespace
}  // namespace kraken
