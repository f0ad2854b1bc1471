// POST /api/v1/pack over loopback: the cluster sent in the body (the real openb GPU node
// list with the real multigpu20 pod list, or a prefix of the default one written by the
// test) gives the document `kraken pack --json` prints for the same files, and bad bodies
// give one-line JSON errors.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "base/json_writer.h"
#include "base/testing/built_files.h"
#include "base/testing/run_command.h"
#include "server/test_server.h"

namespace kraken::server {
namespace {

using testing::ErrorCode;
using testing::TestServer;

constexpr char kNodes[] = "alibaba-gpu-v2023/openb_node_list_gpu_node.csv";
constexpr char kPods[] = "alibaba-gpu-v2023/openb_pod_list_default.csv";
constexpr char kMultiGpuPods[] = "alibaba-gpu-v2023/openb_pod_list_multigpu20.csv";

// What `kraken ARGS` prints on stdout; the command must succeed.
std::string RunKraken(const std::string& args) {
  // Appended in place: GCC 12's -Warray-bounds misreads `std::string(...) + " " + args` once
  // inlined into this unity batch.
  std::string command = KRAKEN_BINARY_PATH;
  command.append(" ").append(args);
  kraken::testing::CommandResult r = kraken::testing::RunCommand(command);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return r.out;
}

// The header and the first `rows` pods of the default list, as a temp file (so that the
// sweep stays quick) and as text.
struct PodPrefix {
  std::string path;
  std::string text;
};
PodPrefix WritePodPrefix(size_t rows) {
  std::istringstream in(kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kPods)));
  PodPrefix prefix;
  std::string line;
  for (size_t i = 0; i <= rows && std::getline(in, line); ++i) prefix.text += line + "\n";
  prefix.path = kraken::testing::MakeTempDir("pack_api") + "/pods.csv";
  std::ofstream(prefix.path, std::ios::binary) << prefix.text;
  return prefix;
}

// {"nodes_csv":...,"pods_csv":..., then the extra fields as written}.
std::string Body(const std::string& nodes, const std::string& pods, const std::string& extra = "") {
  JsonWriter json(false);
  json.BeginObject().Field("nodes_csv", nodes).Field("pods_csv", pods).EndObject();
  std::string body = json.Take();
  if (!extra.empty()) body.insert(body.size() - 1, "," + extra);
  return body;
}

// The two fields a sweep measures in wall time, zeroed; returns how many it replaced.
std::string WithoutTimings(const std::string& doc, int* replaced) {
  static const std::regex timing("\"(wall_seconds|seconds)\": [-+0-9.eE]+");
  *replaced =
      static_cast<int>(std::distance(std::sregex_iterator(doc.begin(), doc.end(), timing), std::sregex_iterator()));
  return std::regex_replace(doc, timing, "\"$1\": 0");
}

TEST(PackApiTest, SweepEqualsKrakenPackJsonExceptTimingsAndInputNames) {
  const std::string nodes_path = kraken::testing::DataPath(kNodes);
  PodPrefix pods;  // the whole real list this time
  pods.path = kraken::testing::DataPath(kMultiGpuPods);
  pods.text = kraken::testing::ReadFileOrDie(pods.path);
  std::string cli = RunKraken("pack --nodes " + nodes_path + " --pods " + pods.path +
                              " --policy FGD,kraken --seeds 42-43 --threads 1 --json");
  ASSERT_FALSE(cli.empty());
  TestServer server;
  auto res = server.Client()->Post("/api/v1/pack",
                                   Body(kraken::testing::ReadFileOrDie(nodes_path), pods.text,
                                        R"("policy":"FGD,kraken","seeds":"42-43","threads":1)"),
                                   "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type").rfind("application/json", 0), 0u);  // "; charset=utf-8" when large
  EXPECT_FALSE(res->has_header("X-Kraken-Import-Counters"));

  // The CLI names the files where the API names the fields that carried them.
  std::string expected = cli;
  for (const auto& [path, field] : {std::pair{nodes_path, "nodes_csv"}, std::pair{pods.path, "pods_csv"}}) {
    size_t at = expected.find("\"" + path + "\"");
    ASSERT_NE(at, std::string::npos) << path;
    expected.replace(at, path.size() + 2, std::string("\"") + field + "\"");
  }
  int cli_timings = 0, api_timings = 0;
  expected = WithoutTimings(expected, &cli_timings);
  std::string actual = WithoutTimings(res->body, &api_timings);
  EXPECT_EQ(cli_timings, 3);  // wall_seconds + one per policy
  EXPECT_EQ(api_timings, 3);
  EXPECT_EQ(actual, expected);
  // Real figures: 1213 GPU nodes with 6212 GPUs, 8324 pods; medians over seeds 42 and 43 of the
  // unallocated GPU % when the submitted requests reach 100 % of capacity.
  for (const char* line : {"\"nodes_file\": \"nodes_csv\",", "\"pods_file\": \"pods_csv\",", "\"nodes\": 1213,",
                           "\"gpus\": 6212,", "\"pods\": 8324,", "\"threads\": 1,",
                           "\"policy\": \"FGD\",\n      \"unallocated_pct_at_100\": 4.515,",
                           "\"policy\": \"Kraken\",\n      \"unallocated_pct_at_100\": 3.245,"})
    EXPECT_NE(res->body.find(line), std::string::npos) << line << " in " << res->body.substr(0, 400);
}

TEST(PackApiTest, ExplainEqualsKrakenPackExplainJsonByteForByte) {
  const std::string nodes_path = kraken::testing::DataPath(kNodes);
  const PodPrefix pods = WritePodPrefix(1000);
  std::string cli = RunKraken("pack --nodes " + nodes_path + " --pods " + pods.path +
                              " --policy FGD --seeds 42 --explain-pod 10 --explain-pod 11 --explain-top 3 --json");
  ASSERT_FALSE(cli.empty());
  TestServer server;
  auto res = server.Client()->Post("/api/v1/pack",
                                   Body(kraken::testing::ReadFileOrDie(nodes_path), pods.text,
                                        R"("policy":"FGD","seeds":42,"explain_pod":[10,11],"explain_top":3)"),
                                   "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->body, cli);
  EXPECT_NE(res->body.find("\"position\": 11,"), std::string::npos);
}

struct BadCase {
  std::string body;
  int status;
  std::string code;
  std::string message_part;
};

TEST(PackApiTest, BadBodiesAreOneLineErrors) {
  const std::string nodes = kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kNodes));
  const std::string pods = WritePodPrefix(50).text;
  const std::vector<BadCase> cases = {
      {"{", 400, "bad_json", "not valid JSON"},
      {"{}", 400, "bad_request", "'nodes_csv' is required"},
      {Body(nodes, ""), 400, "bad_request", "'pods_csv' is required"},
      {R"({"nodes_csv":7,"pods_csv":"x"})", 400, "bad_request", "'nodes_csv' must be a string"},
      {Body(nodes, pods, R"("policy":"Tetris")"), 400, "bad_request", "unknown policy 'Tetris'"},
      {Body(nodes, pods, R"("seeds":"9-3")"), 400, "bad_request", "--seeds: '9-3' is not a range"},
      {Body(nodes, pods, R"("seeds":"1-101","policy":"FGD")"), 400, "bad_request",
       "seeds x policies = 101 experiments; the server runs at most 100 per request"},
      {Body(nodes, pods, R"("threads":0)"), 400, "bad_request", "'threads' must be a whole number in [1, 256]"},
      {Body(nodes, pods, R"("tune":50)"), 400, "bad_request", "'tune' must be a number in [0, 5]"},
      {Body(nodes, pods, R"("tune":0)"), 400, "bad_request", "--tune must be in (0, 5]"},
      {Body(nodes, pods, R"("explain_pod":["x"])"), 400, "bad_request", "'explain_pod' must be a number or an array"},
      {Body(nodes, "name,cpu_milli,num_gpu\np,1000,0\n"), 422, "unprocessable",
       "pods_csv: line 1: missing column 'memory_mib'"},
      {Body("sn,cpu_milli,memory_mib\nn,1000,1024\n", pods), 422, "unprocessable",
       "nodes_csv: line 1: missing column 'gpu'"},
      {Body(nodes, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,x,1,1,1000\n"), 422, "unprocessable",
       "nodes_csv + pods_csv: the pod list is empty"},
      {Body(nodes, pods, R"("seeds":42,"explain_pod":500000)"), 422, "unprocessable",
       "--explain-pod 500000: seed 42 submits pods 0.."},
  };
  TestServer server;
  auto client = server.Client();
  for (const BadCase& c : cases) {
    auto res = client->Post("/api/v1/pack", c.body, "application/json");
    ASSERT_TRUE(res) << c.message_part;
    EXPECT_EQ(res->status, c.status) << c.message_part << ": " << res->body;
    EXPECT_EQ(ErrorCode(res->body), c.code) << res->body;
    EXPECT_NE(res->body.find(c.message_part), std::string::npos) << res->body;
    EXPECT_EQ(res->body.find("\\n"), std::string::npos) << "one line: " << res->body;
  }
  auto form = client->Post("/api/v1/pack", "nodes_csv=x", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
}

TEST(PackApiTest, SkippedRowsAreCountedInAHeader) {
  const std::string nodes = kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kNodes));
  std::string pods = WritePodPrefix(200).text;
  pods += "bad-fields,1\nbad-number,x,1,1,1000,,LS,Running,0,0,0\n";
  TestServer server;
  auto res =
      server.Client()->Post("/api/v1/pack", Body(nodes, pods, R"("policy":"BestFit","seeds":"1")"), "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("X-Kraken-Import-Counters"),
            "pods_csv: openb_bad_rows=2 openb_unparsable_numbers=1 openb_wrong_field_count=1");
  EXPECT_NE(res->body.find("\"pods\": 200,"), std::string::npos);
}

TEST(PackApiTest, BodiesOverTheLimitAre413) {
  ServeOptions options;
  options.max_body_bytes = 4096;
  TestServer server(options);
  const std::string nodes = kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kNodes));
  auto res = server.Client()->Post("/api/v1/pack", Body(nodes, "x"), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(ErrorCode(res->body), "payload_too_large");
}

TEST(PackApiTest, ExplainFlagEqualsKrakenPackExplainJson) {
  const std::string nodes_path = kraken::testing::DataPath(kNodes);
  const PodPrefix pods = WritePodPrefix(300);
  std::string cli = RunKraken("pack --nodes " + nodes_path + " --pods " + pods.path +
                              " --policy BestFit,Kraken --seeds 7 --explain --explain-top 2 --json");
  ASSERT_FALSE(cli.empty());
  TestServer server;
  auto res = server.Client()->Post("/api/v1/pack",
                                   Body(kraken::testing::ReadFileOrDie(nodes_path), pods.text,
                                        R"("policy":"BestFit,Kraken","seeds":"7","explain":true,"explain_top":2)"),
                                   "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->body, cli);
  EXPECT_NE(res->body.find("\"position\": 2,"), std::string::npos);  // the first 3 pods by default
}

}  // namespace
}  // namespace kraken::server
