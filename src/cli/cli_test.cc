// End-to-end tests of the kraken binary: exit codes, the one-line error contract,
// nothing written on failure, and the --json document's keys (docs/json-output.md).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string WriteFile(const std::string& name, const std::string& content) {
  std::string path = testing::MakeTempDir("cli_inputs_" + name) + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
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

std::string OrionFile(const char* stem) { return testing::DataPath(std::string("orion/") + stem + ".csv"); }

TEST(CliTest, ColocateJsonCarriesPredictionsInputsAndAssumptions) {
  RunResult r = RunKraken("colocate --json --mode mps --sm-split 100,100 --rate resnet50_4_fwd=30 " +
                          OrionFile("resnet50_4_fwd") + " " + OrionFile("resnet50_32_fb1"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  std::string_view model, label, contended;
  EXPECT_EQ(doc["model"].get_string().get(model), simdjson::SUCCESS);
  EXPECT_EQ(model, "measured");
  simdjson::dom::array modes, predictions, terms, inputs, assumptions, notes, params;
  ASSERT_EQ(doc["modes"].get_array().get(modes), simdjson::SUCCESS);
  ASSERT_EQ(modes.size(), 1u);
  EXPECT_EQ(modes.at(0)["label"].get_string().get(label), simdjson::SUCCESS);
  EXPECT_EQ(label, "mps (no SM cap)");
  ASSERT_EQ(modes.at(0)["predictions"].get_array().get(predictions), simdjson::SUCCESS);
  ASSERT_EQ(predictions.size(), 2u);
  double p99 = 0, slowdown = 0;
  ASSERT_EQ(predictions.at(0)["latency"]["p99_colocated_ms"].get_double().get(p99), simdjson::SUCCESS);
  EXPECT_NEAR(p99, 116.73, 0.01);  // see colocate_orion_validation_test.cc
  ASSERT_EQ(predictions.at(1)["slowdown"].get_double().get(slowdown), simdjson::SUCCESS);
  EXPECT_NEAR(slowdown, 1.1384, 0.0001);
  // The mode carries the model's measured error on real hardware (model_validation.cc).
  bool validated = false;
  std::string_view summary;
  ASSERT_EQ(modes.at(0)["validation"]["validated"].get_bool().get(validated), simdjson::SUCCESS);
  EXPECT_TRUE(validated);
  ASSERT_EQ(modes.at(0)["validation"]["summary"].get_string().get(summary), simdjson::SUCCESS);
  EXPECT_NE(summary.find("H100"), std::string_view::npos) << summary;
  EXPECT_EQ(predictions.at(0)["contended_resource"].get_string().get(contended), simdjson::SUCCESS);
  EXPECT_EQ(contended, "SM queue (co-runner's blocks)");
  ASSERT_EQ(predictions.at(0)["terms"].get_array().get(terms), simdjson::SUCCESS);
  EXPECT_GT(terms.size(), 5u);
  ASSERT_EQ(doc["workloads"].at(0)["inputs"].get_array().get(inputs), simdjson::SUCCESS);
  EXPECT_GT(inputs.size(), 5u);
  ASSERT_EQ(doc["assumptions"].get_array().get(assumptions), simdjson::SUCCESS);
  EXPECT_GE(assumptions.size(), 7u);
  ASSERT_EQ(doc["parameters"].get_array().get(params), simdjson::SUCCESS);
  EXPECT_GE(params.size(), 10u);
  ASSERT_EQ(doc["notes"].get_array().get(notes), simdjson::SUCCESS);
  ASSERT_EQ(notes.size(), 1u);  // the V100 chosen for the Orion lists
  std::string_view note;
  EXPECT_EQ(notes.at(0).get_string().get(note), simdjson::SUCCESS);
  EXPECT_NE(note.find("v100-pcie"), std::string_view::npos);
}

TEST(CliTest, ColocateTextExplainAndClassTable) {
  std::string files = OrionFile("resnet50_4_fwd") + " " + OrionFile("resnet50_32_fb1");
  RunResult r = RunKraken("colocate --explain --rate 1=30 " + files);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"timeslice", "mps 45/55", "v100-pcie does not support MIG", "Pair scores",
                           "Inputs (* = assumed, not measured)", "Formula parts: mps 45/55", "Model parameters",
                           "Assumptions", "SM factor alone (share 0.450)"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part;
  RunResult table = RunKraken("colocate --model class-table " + files);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("0.70"), std::string::npos);  // mixed (inference) + compute (training)
  EXPECT_NE(table.out.find("class-pair table: mixed + compute"), std::string::npos);
}

TEST(CliTest, ColocateOptimizePlacesAndExplains) {
  RunResult r = RunKraken("colocate --optimize --json --gpus 2 --max-slowdown 2 --rate 1=15 --rate 2=40 " +
                          OrionFile("resnet50_4_fwd") + " " + OrionFile("mobilenetv2_4_fwd") + " " +
                          OrionFile("resnet50_32_fb1") + " " + OrionFile("transformer_xl_8_fb1"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  bool feasible = false;
  int64_t used = 0;
  ASSERT_EQ(doc["placement"]["feasible"].get_bool().get(feasible), simdjson::SUCCESS);
  EXPECT_TRUE(feasible);
  ASSERT_EQ(doc["placement"]["gpus_used"].get_int64().get(used), simdjson::SUCCESS);
  EXPECT_EQ(used, 2);
}

TEST(CliTest, ColocateBadUsageGivesOneLineErrors) {
  std::string two = OrionFile("resnet50_4_fwd") + " " + OrionFile("resnet50_32_fb1");
  ExpectOneLineError(RunKraken("colocate " + OrionFile("resnet50_4_fwd")), "at least two workloads");
  ExpectOneLineError(RunKraken("colocate --qos nosuch=2 " + two), "--qos: no workload named 'nosuch'");
  ExpectOneLineError(RunKraken("colocate --rate resnet50_4_fwd=fast " + two), "--rate expects a positive number");
  ExpectOneLineError(RunKraken("colocate --sm-split 60 " + two), "--sm-split has 1 values for 2 workloads");
  ExpectOneLineError(RunKraken("colocate --mode shared " + two), "--mode must be");
  ExpectOneLineError(RunKraken("colocate --model magic " + two), "--model must be");
  ExpectOneLineError(RunKraken("colocate --device no-such-gpu " + two), "unknown device 'no-such-gpu'");
  ExpectOneLineError(RunKraken("colocate --optimize " + two), "--optimize needs --gpus");
  ExpectOneLineError(RunKraken("colocate " + OrionFile("resnet50_32_fb0") + " " + OrionFile("resnet50_4_fwd")),
                     "resnet50_32_fb0.csv: all 624 rows are placeholders");
  ExpectOneLineError(RunKraken("colocate --optimize --gpus 1 --gpu-memory lots " + two), "--gpu-memory expects");
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

// The store commands against a database in a temp folder: import --db, list, show,
// export (JSON and CSV), analyze by id, and their one-line errors.
TEST(CliTest, StoreCommandsImportListShowExportAnalyze) {
  std::string dir = testing::MakeTempDir("cli_store");
  std::string db = dir + "/profiles.db";
  std::string orion = OrionFile("resnet50_4_fwd");
  std::string dcgm = testing::DataPath("dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt");
  RunResult imported = RunKraken("import " + orion + " " + dcgm + " --db=" + db);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("stored as profile 1 in " + db), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("stored as profile 2 in " + db), std::string::npos);
  EXPECT_NE(imported.out.find("orion-csv"), std::string::npos);  // the usual summary is still there

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  RunResult list = RunKraken("list --json --db " + db);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  ASSERT_EQ(parser.parse(list.out).get(doc), simdjson::SUCCESS) << list.out;
  simdjson::dom::array profiles;
  ASSERT_EQ(doc["profiles"].get_array().get(profiles), simdjson::SUCCESS);
  ASSERT_EQ(profiles.size(), 2u);
  int64_t kernels = 0, series = 0;
  EXPECT_EQ(profiles.at(0)["counts"]["kernels"].get_int64().get(kernels), simdjson::SUCCESS);
  EXPECT_EQ(kernels, 175);
  EXPECT_EQ(profiles.at(1)["counts"]["series"].get_int64().get(series), simdjson::SUCCESS);
  EXPECT_EQ(series, 38);
  std::string_view kind;
  EXPECT_EQ(profiles.at(1)["kind"].get_string().get(kind), simdjson::SUCCESS);
  EXPECT_EQ(kind, "import");

  RunResult show = RunKraken("show 2 --json --db " + db);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  ASSERT_EQ(parser.parse(show.out).get(doc), simdjson::SUCCESS) << show.out;
  simdjson::dom::array stats, devices;
  ASSERT_EQ(doc["series"].get_array().get(stats), simdjson::SUCCESS);
  EXPECT_EQ(stats.size(), 38u);
  ASSERT_EQ(doc["devices"].get_array().get(devices), simdjson::SUCCESS);
  EXPECT_EQ(devices.size(), 3u);
  double power = 0;
  EXPECT_EQ(stats.at(3)["mean"].get_double().get(power), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(power, 8.969);  // DCGM_FI_DEV_POWER_USAGE of the first T4
  RunResult show_text = RunKraken("show 2 --db " + db);
  ASSERT_EQ(show_text.exit_code, 0);
  EXPECT_NE(show_text.out.find("DCGM_FI_DEV_POWER_USAGE"), std::string::npos);

  RunResult json = RunKraken("export 1 --format json --db " + db);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out.substr(0, 200);
  simdjson::dom::array kernel_list, labels;
  ASSERT_EQ(doc["kernels"].get_array().get(kernel_list), simdjson::SUCCESS);
  EXPECT_EQ(kernel_list.size(), 175u);
  ASSERT_EQ(doc["kernel_labels"].get_array().get(labels), simdjson::SUCCESS);
  EXPECT_EQ(labels.size(), 175u);
  std::string_view format;
  EXPECT_EQ(doc["metadata"]["format"].get_string().get(format), simdjson::SUCCESS);
  EXPECT_EQ(format, "orion-csv");

  std::string csv_path = dir + "/series.csv";
  RunResult csv = RunKraken("export 2 --format csv -o " + csv_path + " --db " + db);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::string csv_text = testing::ReadFileOrDie(csv_path);
  EXPECT_EQ(std::count(csv_text.begin(), csv_text.end(), '\n'), 39);  // header + 38 samples
  EXPECT_EQ(csv_text.rfind("series,metric,source_name,gpu_index,", 0), 0u);
  EXPECT_NE(csv_text.find("3,power_w,DCGM_FI_DEV_POWER_USAGE,0,"), std::string::npos);
  EXPECT_NE(csv_text.find(",8.969\n"), std::string::npos);

  // A stored profile analyses exactly like its file.
  RunResult from_file = RunKraken("analyze --json " + orion);
  RunResult from_store = RunKraken("analyze --json 1 --db " + db);
  RunResult from_ref = RunKraken("analyze --json db:1 --db " + db);
  ASSERT_EQ(from_store.exit_code, 0) << from_store.err;
  EXPECT_EQ(from_store.out, from_file.out);
  EXPECT_EQ(from_ref.out, from_file.out);

  ExpectOneLineError(RunKraken("show 99 --db " + db), "no profile 99");
  ExpectOneLineError(RunKraken("analyze 99 --db " + db), "no profile 99");
  ExpectOneLineError(RunKraken("show one --db " + db), "'one' is not a profile id");
  ExpectOneLineError(RunKraken("export 1 --format xml --db " + db), "unknown format 'xml'");
  ExpectOneLineError(RunKraken("list --db " + orion), "not a kraken database");
  ExpectOneLineError(RunKraken("show 1 --db " + dir + "/none.db"), "no profile database here");
  std::string out = dir + "/nothing.json";
  ExpectOneLineError(RunKraken("export 7 -o " + out + " --db " + db), "no profile 7");
  EXPECT_FALSE(std::filesystem::exists(out));

  // Damaged pages (everything after the header page overwritten; the last connection to
  // close folded the log back into the file).
  std::string bytes = testing::ReadFileOrDie(db);
  ASSERT_GT(bytes.size(), 8192u);
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
  std::ofstream(db, std::ios::binary | std::ios::trunc) << bytes;
  ExpectOneLineError(RunKraken("show 1 --db " + db), "malformed");
}

TEST(CliTest, StoreDefaultsToKrakenStoragePath) {
  std::string dir = testing::MakeTempDir("cli_store_default");
  std::string env = "KRAKEN_STORAGE_PATH=" + dir + "/default.db ";
  const char* kOrion = "orion/mobilenetv2_4_fwd.csv";
  // A bare --db (last, so that it takes no file) stores into the default database.
  RunResult with_env = RunKraken("import " + testing::DataPath(kOrion) + " --db", env);
  ASSERT_EQ(with_env.exit_code, 0) << with_env.err;
  EXPECT_NE(with_env.out.find("stored as profile 1 in " + dir + "/default.db"), std::string::npos) << with_env.out;
  RunResult list = RunKraken("list", env);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("1 profile(s)"), std::string::npos) << list.out;
  RunResult empty = RunKraken("list", "KRAKEN_STORAGE_PATH=" + dir + "/empty.db ");
  ASSERT_EQ(empty.exit_code, 0);
  EXPECT_EQ(empty.out, "no profiles in " + dir + "/empty.db\n");
  // Without KRAKEN_STORAGE_PATH: $XDG_DATA_HOME/kraken/kraken.db, its folders created.
  RunResult xdg = RunKraken("import " + testing::DataPath(kOrion) + " --db",
                            "env -u KRAKEN_STORAGE_PATH XDG_DATA_HOME=" + dir + "/xdg ");
  ASSERT_EQ(xdg.exit_code, 0) << xdg.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/xdg/kraken/kraken.db"));
}

TEST(CliTest, ExtenderRefusesBadDecisionFlagsBeforeListening) {
  ExpectOneLineError(RunKraken("extender --listen 127.0.0.1:0 --max-slowdown 1"),
                     "--max-slowdown must be above 1 (1 = no slowdown at all)");
  ExpectOneLineError(RunKraken("extender --listen 127.0.0.1:0 --packing-policy Random"),
                     "--packing-policy expects BestFit or FGD, got 'Random'");
  RunResult help = RunKraken("extender --help");
  EXPECT_NE(help.out.find("--log-decisions"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace kraken
