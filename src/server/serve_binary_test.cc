// The real `kraken` binary: `kraken serve` starts, answers and exits cleanly on SIGTERM,
// and the analysis the server returns for an uploaded trace is, byte for byte, what
// `kraken analyze --json` prints for the same file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/run_command.h"
#include "server/test_server.h"
#include "server/test_upload.h"

namespace kraken::server {
namespace {

using testing::kTrace;
using testing::kTraceName;

// Standard output of a shell command (the commands redirect their own stderr).
std::string RunAndCapture(const std::string& command) { return kraken::testing::RunCommand(command).out; }

TEST(ServeBinaryTest, AnalysisOfAnUploadEqualsKrakenAnalyzeOfTheFile) {
  testing::ServerWithUpload loopback(kTrace, kTraceName);
  ASSERT_GT(loopback.upload.id, 0);
  std::string path = kraken::testing::DataPath(kTrace);
  auto analysis = loopback.client->Get(loopback.Path("/analysis"));
  ASSERT_TRUE(analysis);
  ASSERT_EQ(analysis->status, 200);

  std::string cli = RunAndCapture(std::string(KRAKEN_BINARY_PATH) + " analyze --json '" + path + "' 2>/dev/null");
  ASSERT_FALSE(cli.empty());
  // The one difference: the CLI names the input by the path it was given, the server by
  // the uploaded file's name.
  for (size_t at = cli.find(path); at != std::string::npos; at = cli.find(path, at))
    cli.replace(at, path.size(), kTraceName);
  EXPECT_EQ(analysis->body, cli);
}

TEST(ServeBinaryTest, ServeStartsAnswersAndStopsOnSigterm) {
  std::string dir = kraken::testing::MakeTempDir("serve-binary");
  std::string log = dir + "/serve.log";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    FILE* err = std::freopen(log.c_str(), "w", stderr);
    (void)err;
    ::execl(KRAKEN_BINARY_PATH, KRAKEN_BINARY_PATH, "serve", "--host", "127.0.0.1", "--port", "0", "--db",
            (dir + "/kraken.db").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int port = 0;
  for (int i = 0; i < 200 && port == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = text.find("http://127.0.0.1:");
    if (at != std::string::npos) port = std::atoi(text.c_str() + at + 17);
  }
  ASSERT_GT(port, 0) << "kraken serve printed no address";
  httplib::Client client("127.0.0.1", port);
  auto health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto colocation = client.Get("/colocation?a=resnet50&b=bert");
  ASSERT_TRUE(colocation);
  // The legacy table's ResNet-50 (COMPUTE_BOUND) and BERT (MIXED) in the class-pair table.
  EXPECT_NE(colocation->body.find("\"colocation_score\":0.7,"), std::string::npos) << colocation->body;
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ServeBinaryTest, BadFlagsAreOneLineErrors) {
  std::string out = RunAndCapture(std::string(KRAKEN_BINARY_PATH) + " serve --max-body lots 2>&1; echo rc=$?");
  EXPECT_NE(out.find("kraken: error:"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=2"), std::string::npos) << out;
  out = RunAndCapture(std::string(KRAKEN_BINARY_PATH) + " serve --token-file /nonexistent/token 2>&1; echo rc=$?");
  EXPECT_NE(out.find("token file"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=2"), std::string::npos) << out;
}

// Without SO_REUSEPORT the second instance cannot bind, so requests never alternate
// between two servers: it stops at once with one line and exit 2.
TEST(ServeBinaryTest, ASecondServeOnATakenPortExits2) {
  testing::TestServer first;
  std::string dir = kraken::testing::MakeTempDir("serve-taken");
  std::string out = RunAndCapture("timeout 20 " + std::string(KRAKEN_BINARY_PATH) + " serve --host 127.0.0.1 --port " +
                                  std::to_string(first.port()) + " --db " + dir + "/kraken.db 2>&1; echo rc=$?");
  EXPECT_EQ(out, "kraken: error: cannot listen on 127.0.0.1:" + std::to_string(first.port()) +
                     ": the port is already in use by another process\nrc=2\n");
}

}  // namespace
}  // namespace kraken::server
