// End-to-end tests of `kraken gpus` and `kraken record-nvml` on the replay library: the
// one-line "libnvidia-ml not found" error, the JSON listing, and the two ways of making a
// capture (deriving one from nvidia-smi output, recording one through NVML).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string Fixture(const std::string& name) { return testing::SourceDir() + "/tests/fixtures/nvml/" + name; }

TEST(NvmlCliTest, NoDriverIsAOneLineErrorWithExitCode2) {
  ::unsetenv("KRAKEN_NVML_LIBRARY");
  RunResult r = RunKraken("gpus --nvml-library /nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("kraken: error: cannot load the NVML library /nonexistent/libnvidia-ml.so.1 (", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_TRUE(r.out.empty());
  RunResult record = RunKraken("record-nvml --nvml-library /nonexistent/libnvidia-ml.so.1 --out -");
  EXPECT_EQ(record.exit_code, 2);
  EXPECT_NE(record.err.find("cannot load the NVML library"), std::string::npos) << record.err;
}

TEST(NvmlCliTest, GpusListsTheReplayedNodeAsJson) {
  ::setenv("KRAKEN_NVML_REPLAY", Fixture("h100-mig.nvml").c_str(), 1);
  RunResult r = RunKraken(std::string("gpus --json --nvml-library ") + KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  simdjson::dom::element gpu = doc["gpus"].at(0);
  std::string_view name, profile;
  int64_t sms = 0;
  double power = 0;
  ASSERT_EQ(gpu["name"].get_string().get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(gpu["mig_instances"].at(0)["profile"].get_string().get(profile), simdjson::SUCCESS);
  EXPECT_EQ(profile, "3g.40gb");
  ASSERT_EQ(gpu["mig_instances"].at(0)["sm_count"].get_int64().get(sms), simdjson::SUCCESS);
  EXPECT_EQ(sms, 60);
  // The one sample is the capture's first frame: idle power 70 W.
  bool found = false;
  for (simdjson::dom::element v : doc["sample"]["values"].get_array()) {
    std::string_view metric;
    if (v["metric"].get_string().get(metric) == simdjson::SUCCESS && metric == "power_w") {
      ASSERT_EQ(v["value"].get_double().get(power), simdjson::SUCCESS);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(power, 70);
}

// The placement topology in `kraken gpus --json` (docs/topology.md), for 8 copies of the
// real H100 capture: each GPU's 18 active NVLinks and PCIe Gen5 x16 (63.02 GB/s one
// direction); nvidia-smi does not say where the links end, so the pairs stay unknown
// (priced as SYS: half the PCIe rate).
TEST(NvmlCliTest, GpusJsonCarriesThePlacementTopology) {
  std::string capture = testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt");
  std::string replay = testing::MakeTempDir("gpus_topology") + "/h100x8.nvml";
  RunResult record = RunKraken("record-nvml --from-nvidia-smi " + capture + " --copies 8 --out " + replay);
  ASSERT_EQ(record.exit_code, 0) << record.err;
  ::setenv("KRAKEN_NVML_REPLAY", replay.c_str(), 1);
  RunResult r = RunKraken(std::string("gpus --json --nvml-library ") + KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  std::string_view annotation;
  ASSERT_EQ(doc["topology"]["annotation"].get_string().get(annotation), simdjson::SUCCESS);
  EXPECT_EQ(annotation.substr(0, 34), "v1;gpu=0,n0,c20,p63.02,l18,free;gp");
  EXPECT_NE(annotation.find(";link=6-7,-,-,31.51"), std::string_view::npos) << annotation;
  EXPECT_EQ(simdjson::dom::array(doc["pairs"]).size(), 28u);
  EXPECT_NEAR(double(doc["pairs"].at(0)["gbps"]), 31.51, 0.005);
  EXPECT_NEAR(double(doc["topology"]["pcie_gbps"].at(7)), 63.02, 0.005);
  EXPECT_FALSE(bool(doc["topology"]["has_nvlink"]));
}

TEST(NvmlCliTest, RecordNvmlDerivesTheCommittedFixture) {
  std::string capture = testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-l40s__595.80.txt");
  RunResult r = RunKraken("record-nvml --from-nvidia-smi " + capture + " --out -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, testing::ReadFileOrDie(Fixture("l40s.nvml")));
}

TEST(NvmlCliTest, RecordNvmlRecordsThroughTheReplayLibrary) {
  ::setenv("KRAKEN_NVML_REPLAY", Fixture("h100.nvml").c_str(), 1);
  std::string out = testing::MakeTempDir("nvml_record") + "/recorded.nvml";
  RunResult r = RunKraken(std::string("record-nvml --nvml-library ") + KRAKEN_NVML_REPLAY_LIBRARY +
                    " --frames 6 --interval 1ms --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), "kraken: wrote 6 frames of 1 GPUs to " + out + "\n");
  // The recorder's own overhead; at 1 ms frames only the first makes the slow reads (1 s).
  EXPECT_NE(r.err.find("kraken: frame reads took "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 1 of 6 frames made the slow reads"), std::string::npos) << r.err;
  std::string text = testing::ReadFileOrDie(out);
  EXPECT_NE(text.find("source = recorded"), std::string::npos);
  EXPECT_NE(text.find("[frame 5]"), std::string::npos);
  EXPECT_NE(text.find("gpu0.power_mw = 631000"), std::string::npos);  // frame 5: the first load row
  // The recording replays: `kraken gpus` reads it back.
  ::setenv("KRAKEN_NVML_REPLAY", out.c_str(), 1);
  RunResult gpus = RunKraken(std::string("gpus --nvml-library ") + KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_EQ(gpus.exit_code, 0) << gpus.err;
  EXPECT_NE(gpus.out.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  RunResult bad = RunKraken("record-nvml --nvml-library " + std::string(KRAKEN_NVML_REPLAY_LIBRARY) + " --interval soon --out -");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--interval: 'soon' is not a duration"), std::string::npos) << bad.err;
}

TEST(NvmlCliTest, RecordNvmlSlowIntervalZeroReadsEveryFrame) {
  ::setenv("KRAKEN_NVML_REPLAY", Fixture("h100.nvml").c_str(), 1);
  std::string out = testing::MakeTempDir("nvml_record_slow") + "/every.nvml";
  std::string library = std::string(" --nvml-library ") + KRAKEN_NVML_REPLAY_LIBRARY;
  RunResult r = RunKraken("record-nvml" + library + " --frames 4 --interval 1ms --slow-interval 0 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("; 4 of 4 frames made the slow reads"), std::string::npos) << r.err;
  RunResult bad = RunKraken("record-nvml" + library + " --slow-interval later --out -");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--slow-interval: 'later' is not a duration"), std::string::npos) << bad.err;
}

// A script records "during the runs" without knowing how long they take: SIGTERM ends the
// recording after the current frame, and the frames so far are written (exit 0).
TEST(NvmlCliTest, RecordNvmlStopsAtSigtermAndWritesWhatItRecorded) {
  std::string out = testing::MakeTempDir("nvml_record_stop") + "/stopped.nvml";
  std::string command = std::string("KRAKEN_NVML_REPLAY=") + Fixture("h100.nvml") + " " + KRAKEN_BINARY_PATH +
                        " record-nvml --nvml-library " + KRAKEN_NVML_REPLAY_LIBRARY +
                        " --duration 60s --interval 20ms --out " + out +
                        " & pid=$!; sleep 1; kill -TERM $pid; wait $pid; echo exit=$?";
  RunResult r = testing::RunCommand("sh -c '" + command + "'");
  EXPECT_NE(r.out.find("exit=0"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find(" (stopped by SIGTERM)"), std::string::npos) << r.err;
  std::string text = testing::ReadFileOrDie(out);
  EXPECT_NE(text.find("[frame 5]"), std::string::npos);          // about 50 frames in the second
  EXPECT_EQ(text.find("[frame 2999]"), std::string::npos);       // not the 60 s asked for
  ::setenv("KRAKEN_NVML_REPLAY", out.c_str(), 1);                // and it replays
  RunResult gpus = RunKraken(std::string("gpus --nvml-library ") + KRAKEN_NVML_REPLAY_LIBRARY);
  EXPECT_EQ(gpus.exit_code, 0) << gpus.err;
}

}  // namespace
}  // namespace kraken
