// Golden test of the co-location model against measured ground truth: the six pairs of
// examples/colocation/ (one H100 80GB HBM3, scripts/gpu-validate.sh run 1), each workload's
// slowdown measured under time-slicing and under MPS without an SM cap. The real `kraken
// colocate` runs on the CUPTI traces the committed predictions came from
// (examples/colocation/traces/, written by scripts/gpu_validate/ingest.py), exactly as
// predictions/index.json records the commands. It fails when the model's per-mode mean or
// max |error| grows past the figures the predictions quote (model_validation.cc), and when
// those figures or the committed predictions no longer match what the model does.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

const std::string kColocationDir = testing::SourceDir() + "/examples/colocation/";

struct MeasuredRow {
  std::string mode, pair, workload;
  double measured = 0, committed_prediction = 0;
};

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  return cells;
}

// pairs.csv: one row per mode, pair and workload (no quoted cells).
std::vector<MeasuredRow> ReadPairsCsv() {
  std::ifstream in(kColocationDir + "pairs.csv");
  EXPECT_TRUE(in.good()) << kColocationDir << "pairs.csv";
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = SplitCsvLine(line);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  std::vector<MeasuredRow> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> c = SplitCsvLine(line);
    if (c.size() < header.size()) continue;
    rows.push_back({c[col.at("mode")], c[col.at("pair")], c[col.at("workload")], std::stod(c[col.at("measured_slowdown")]),
                    std::stod(c[col.at("predicted_slowdown")])});
  }
  return rows;
}

struct GoldenPair {
  std::string pair, a, b;
};

std::vector<GoldenPair> ReadIndexPairs() {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::vector<GoldenPair> out;
  EXPECT_EQ(parser.load(kColocationDir + "predictions/index.json").get(doc), simdjson::SUCCESS);
  simdjson::dom::array pairs;
  if (doc["pairs"].get_array().get(pairs) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element p : pairs) {
    std::string_view pair, a, b;
    EXPECT_EQ(p["pair"].get_string().get(pair), simdjson::SUCCESS);
    EXPECT_EQ(p["a"].get_string().get(a), simdjson::SUCCESS);
    EXPECT_EQ(p["b"].get_string().get(b), simdjson::SUCCESS);
    out.push_back({std::string(pair), std::string(a), std::string(b)});
  }
  return out;
}

struct ModeRun {
  std::vector<double> slowdowns;  // a, b
  bool validated = false;
  double quoted_mean = 0, quoted_max = 0;
};

// `kraken colocate A B <mode args> --json` on the pair's traces; the first mode's figures.
ModeRun RunColocate(const GoldenPair& p, const std::string& mode_args) {
  RunResult r = RunKraken("colocate " + kColocationDir + "traces/" + p.a + ".json.gz " + kColocationDir + "traces/" +
                          p.b + ".json.gz " + mode_args + " --json");
  ModeRun run;
  EXPECT_EQ(r.exit_code, 0) << p.pair << ": " << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(r.out).get(doc) != simdjson::SUCCESS) {
    ADD_FAILURE() << p.pair << ": not JSON: " << r.out.substr(0, 200);
    return run;
  }
  simdjson::dom::element mode = doc["modes"].at(0);
  simdjson::dom::array predictions;
  EXPECT_EQ(mode["predictions"].get_array().get(predictions), simdjson::SUCCESS);
  for (simdjson::dom::element w : predictions) {
    double slowdown = 0;
    EXPECT_EQ(w["slowdown"].get_double().get(slowdown), simdjson::SUCCESS);
    run.slowdowns.push_back(slowdown);
  }
  EXPECT_EQ(mode["validation"]["validated"].get_bool().get(run.validated), simdjson::SUCCESS);
  if (run.validated) {
    EXPECT_EQ(mode["validation"]["mean_abs_error_pct"].get_double().get(run.quoted_mean), simdjson::SUCCESS);
    EXPECT_EQ(mode["validation"]["max_abs_error_pct"].get_double().get(run.quoted_max), simdjson::SUCCESS);
  }
  return run;
}

TEST(ColocateH100Golden, PerModeErrorAgainstMeasuredPairsStaysWithinTheQuotedFigures) {
  std::vector<MeasuredRow> rows = ReadPairsCsv();
  std::vector<GoldenPair> pairs = ReadIndexPairs();
  ASSERT_EQ(pairs.size(), 6u);
  ASSERT_EQ(rows.size(), 24u);
  // The modes as the ground truth ran them, with the commands of predictions/index.json.
  const std::vector<std::pair<std::string, std::string>> modes = {{"timeslice", "--mode all"},
                                                                    {"mps", "--mode mps --sm-split 100,100"}};
  for (const auto& [mode, args] : modes) {
    double sum = 0, worst = 0;
    int compared = 0;
    ModeRun last;
    for (const GoldenPair& p : pairs) {
      ModeRun run = RunColocate(p, args);
      ASSERT_EQ(run.slowdowns.size(), 2u) << p.pair;
      last = run;
      const std::string names[2] = {p.a, p.b};
      for (int i = 0; i < 2; ++i) {
        const MeasuredRow* row = nullptr;
        for (const MeasuredRow& r : rows)
          if (r.mode == mode && r.pair == p.pair && r.workload == names[i]) row = &r;
        ASSERT_NE(row, nullptr) << mode << " " << p.pair << " " << names[i];
        // The committed predictions are this model's (ingest.py reran them).
        EXPECT_NEAR(run.slowdowns[i], row->committed_prediction, 5e-6 * row->committed_prediction)
            << mode << " " << p.pair << " " << names[i] << ": rerun scripts/gpu_validate/ingest.py";
        double error = std::abs(run.slowdowns[i] / row->measured - 1) * 100;
        sum += error;
        worst = std::max(worst, error);
        ++compared;
      }
    }
    double mean = sum / compared;
    std::printf("%s: mean |error| %.2f %%, max %.2f %% over %d slowdowns (quoted %.1f / %.1f)\n", mode.c_str(), mean,
                worst, compared, last.quoted_mean, last.quoted_max);
    ASSERT_TRUE(last.validated) << mode;
    // A regression fails here; an improvement fails the NEAR below until the quoted
    // figures (model_validation.cc, via ingest.py's docs/validation.md) follow it.
    EXPECT_LE(mean, last.quoted_mean + 0.05) << mode;
    EXPECT_LE(worst, last.quoted_max + 0.05) << mode;
    EXPECT_NEAR(mean, last.quoted_mean, 0.05) << mode;
    EXPECT_NEAR(worst, last.quoted_max, 0.05) << mode;
  }
}

TEST(ColocateH100Golden, ModesWithoutGroundTruthSayTheyAreUnvalidated) {
  std::vector<GoldenPair> pairs = ReadIndexPairs();
  ASSERT_FALSE(pairs.empty());
  RunResult r = RunKraken("colocate " + kColocationDir + "traces/" + pairs[0].a + ".json.gz " + kColocationDir +
                          "traces/" + pairs[0].b + ".json.gz --mode all --sm-split 50,50");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("timeslice: validated on an NVIDIA H100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mps 50/50: not validated on real hardware (MPS was measured only without an SM cap)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("not validated on real hardware (no measured co-location"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kraken
