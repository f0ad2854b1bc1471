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
  for (const char* name : {"kineto", "ncu-csv", "nvidia-smi", "prometheus-text", "dcgm-counters", "orion-csv",
                           "helios-sequence", "alibaba-genai-pod", "pai-minibatch"})
    EXPECT_NE(formats.out.find(name), std::string::npos) << name;
  RunResult devices = RunKraken("devices");
  EXPECT_EQ(devices.exit_code, 0);
  EXPECT_NE(devices.out.find("h100-sxm"), std::string::npos);
  RunResult help = RunKraken("analyze --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--window"), std::string::npos);
}

TEST(CliTest, TemporalTableJsonAndExplain) {
  std::string philly = testing::DataPath("helios/philly_node_sequence.csv.gz");
  RunResult table = RunKraken("temporal " + philly + " --series active");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("philly_node_sequence/active"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("philly_node_sequence/total"), std::string::npos);
  EXPECT_NE(table.out.find("0.931"), std::string::npos) << table.out;  // MASE 1h
  EXPECT_NE(table.out.find("0.905"), std::string::npos) << table.out;  // MASE 24h

  RunResult json = RunKraken("temporal " + philly + " --series 0 --horizon 1h --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::element series = doc["files"].at(0)["series"].at(0);
  std::string_view verdict, name;
  ASSERT_EQ(series["name"].get_string().get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "philly_node_sequence/active");
  ASSERT_EQ(series["periodicity"]["verdict"].get_string().get(verdict), simdjson::SUCCESS);
  EXPECT_EQ(verdict, "no significant period");
  double mase = 0;
  ASSERT_EQ(series["forecast"]["horizons"].at(0)["mase"].get_double().get(mase), simdjson::SUCCESS);
  EXPECT_NEAR(mase, 0.931, 0.005);
  EXPECT_EQ(series["forecast"]["horizons"].at(1).error(), simdjson::INDEX_OUT_OF_BOUNDS);  // only 1h asked

  RunResult explain = RunKraken("temporal " + philly + " --series active --explain");
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  for (const char* part : {"Inputs", "Periodicity", "r at 1d", "Forecast", "MASE = ", "Assumptions"})
    EXPECT_NE(explain.out.find(part), std::string::npos) << part;
}

TEST(CliTest, TemporalUsageErrors) {
  std::string philly = testing::DataPath("helios/philly_node_sequence.csv.gz");
  ExpectOneLineError(RunKraken("temporal " + philly + " --horizon 1x"), "--horizon expects durations");
  ExpectOneLineError(RunKraken("temporal " + philly + " --series nothing-like-it"), "--series 'nothing-like-it'");
  RunResult both = RunKraken("temporal " + philly + " --json --explain");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(both.out.empty());
}

}  // namespace
}  // namespace kraken
