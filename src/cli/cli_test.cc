// End-to-end tests of the kraken binary: exit codes, the one-line error contract,
// nothing written on failure, and the --json document's keys (docs/json-output.md).
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/testing/test_data.h"

namespace kraken {
namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the kraken binary built beside this test with `args`, capturing both streams.
RunResult RunKraken(const std::string& args) {
  const char* binary = KRAKEN_BINARY_PATH;
  std::string dir = testing::MakeTempDir("cli");
  std::string err_path = dir + "/stderr";
  std::string command = std::string(binary) + " " + args + " 2>" + err_path;
  RunResult result;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 65536> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = testing::ReadFileOrDie(err_path);
  return result;
}

std::string WriteFile(const std::string& name, const std::string& content) {
  std::string path = testing::MakeTempDir("cli_inputs_" + name) + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

void ExpectOneLineError(const RunResult& r, const std::string& must_contain) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("kraken: error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliTest, BadInputsGiveOneLineErrorsAndExitCode2) {
  std::string empty = WriteFile("empty.json", "");
  ExpectOneLineError(RunKraken("analyze " + empty), "empty.json: file is empty");
  std::string binary = WriteFile("blob.bin", std::string("\x00\x01\x02\xff\xfe", 5) + std::string(100, '\x07'));
  ExpectOneLineError(RunKraken("analyze " + binary), "blob.bin: not a format kraken reads");
  std::string truncated = WriteFile("cut.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 2},)");
  ExpectOneLineError(RunKraken("analyze " + truncated), "cut.json: byte ");
  std::string wrong = WriteFile("notes.txt", "just some words\nthat are not a trace\n");
  ExpectOneLineError(RunKraken("import " + wrong), "notes.txt: not a format kraken reads");
  ExpectOneLineError(RunKraken("analyze --device no-such-gpu " + testing::DataPath("kineto/hta/call_stack/backward_thread.json")),
                     "unknown device 'no-such-gpu'");
  ExpectOneLineError(RunKraken("analyze --thresholds 50 " + testing::DataPath("kineto/hta/call_stack/backward_thread.json")),
                     "--thresholds expects");
  ExpectOneLineError(RunKraken("analyze /nonexistent/trace.json"), "");
  ExpectOneLineError(RunKraken("frobnicate"), "");
}

TEST(CliTest, FailedRunWritesNothing) {
  std::string dir = testing::MakeTempDir("cli_out");
  std::string out = dir + "/report.json";
  std::string truncated = WriteFile("cut2.json", R"({"traceEvents": [{"ph": "X")");
  RunResult r = RunKraken("analyze --json -o " + out + " " + truncated);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(CliTest, AnalyzeJsonHasTheDocumentedKeys) {
  RunResult r = RunKraken("analyze --json --window steps " +
                    testing::DataPath("kineto/kineto_tb_plugin/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["ranks"].get_array().get(ranks), simdjson::SUCCESS);
  ASSERT_EQ(ranks.size(), 1u);
  simdjson::dom::element rank = ranks.at(0);
  for (const char* key : {"total_us", "busy_us", "idle_us", "idle_pct", "compute_us", "comm_us", "exposed_comm_us",
                          "memcpy_us", "exposed_memcpy_us"}) {
    double value = -1;
    EXPECT_EQ(rank["timeline"][key].get_double().get(value), simdjson::SUCCESS) << key;
    EXPECT_GE(value, 0) << key;
  }
  std::string_view window, type, bound;
  EXPECT_EQ(rank["window"].get_string().get(window), simdjson::SUCCESS);
  EXPECT_EQ(window, "steps");
  EXPECT_EQ(doc["workload"]["type"].get_string().get(type), simdjson::SUCCESS);
  EXPECT_EQ(type, "training");
  EXPECT_EQ(doc["workload"]["bound"].get_string().get(bound), simdjson::SUCCESS);
  simdjson::dom::array top, diagnoses;
  ASSERT_EQ(doc["kernels"]["top"].get_array().get(top), simdjson::SUCCESS);
  EXPECT_EQ(top.size(), 10u);
  ASSERT_EQ(doc["diagnoses"].get_array().get(diagnoses), simdjson::SUCCESS);
  EXPECT_GT(diagnoses.size(), 0u);
  double utilization = 0;
  ASSERT_EQ(rank["tb_plugin"]["gpu_utilization_pct"].get_double().get(utilization), simdjson::SUCCESS);
  EXPECT_NEAR(utilization, 70.27, 0.005);
}

TEST(CliTest, ArchiveAnalysesEveryRank) {
  RunResult r = RunKraken("analyze --json " + testing::DataPath("kineto/param/dlrm_kineto.tar.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["ranks"].get_array().get(ranks), simdjson::SUCCESS);
  EXPECT_EQ(ranks.size(), 8u);
  std::string_view type;
  ASSERT_EQ(doc["workload"]["type"].get_string().get(type), simdjson::SUCCESS);
  EXPECT_EQ(type, "training");
}

TEST(CliTest, FormatsAndDevicesList) {
  RunResult formats = RunKraken("formats");
  EXPECT_EQ(formats.exit_code, 0);
  for (const char* name : {"kineto", "ncu-csv", "nvidia-smi", "prometheus-text", "dcgm-counters", "orion-csv"})
    EXPECT_NE(formats.out.find(name), std::string::npos) << name;
  RunResult devices = RunKraken("devices");
  EXPECT_EQ(devices.exit_code, 0);
  EXPECT_NE(devices.out.find("h100-sxm"), std::string::npos);
  RunResult help = RunKraken("analyze --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--window"), std::string::npos);
}

}  // namespace
}  // namespace kraken
