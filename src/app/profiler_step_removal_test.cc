// RemoveProfilerStep on real torch.profiler traces (copied into a temp dir) and on small
// edge cases: only the named complete events and one comma each go, every other byte stays.
#include "app/profiler_step_removal.h"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/byte_stream.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

// A real MI250 training trace: ProfilerStep#1 has a CPU and a GPU range, #2 (the range
// open when the profiler stopped) a CPU range only.
constexpr const char* kMi250Trace = "kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz";
// A real training trace with ProfilerStep#551 and #552 (CPU ranges).
constexpr const char* kSampledRankTrace = "kineto/hta/trace_filter/sampled_rank-0.json.gz";

void WriteStepTraceFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The shared trace, decompressed into a fresh temp dir (the data is never edited).
std::string CopyTraceToTemp(const std::string& relative, const std::string& dir_name) {
  auto file = OpenFileStream(testing::DataPath(relative));
  EXPECT_TRUE(file.ok()) << file.status().message();
  auto gzip = MakeGzipStream(std::move(*file));
  auto text = ReadAll(*gzip);
  EXPECT_TRUE(text.ok()) << text.status().message();
  const std::string path = testing::MakeTempDir(dir_name) + "/trace.json";
  WriteStepTraceFile(path, *text);
  return path;
}

// One past the '}' closing the object that starts at `begin`, counting braces outside
// strings (an independent reading of the event's extent).
size_t StepObjectEnd(const std::string& text, size_t begin) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = begin; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '}') {
      depth += c == '{' ? 1 : -1;
      if (depth == 0) return i + 1;
    }
  }
  return std::string::npos;
}

// The trace without the events named `name` (each found by its text, never the array's
// last in these traces): the event from its brace to its closing brace, and the comma
// right after it.
std::string WithoutStepObjects(std::string text, const std::string& name, int* removed) {
  *removed = 0;
  const std::string needle = "\"name\": \"" + name + "\",";
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at)) {
    const size_t begin = text.rfind('{', at);  // "ph" and "cat" come first, without braces
    const size_t end = StepObjectEnd(text, begin);
    if (end == std::string::npos || text[end] != ',') {
      ADD_FAILURE() << "the event at byte " << begin << " is not followed by a comma";
      return text;
    }
    text.erase(begin, end + 1 - begin);
    at = begin;
    ++*removed;
  }
  return text;
}

struct ImportedStepFacts {
  int64_t events = 0;
  size_t kernels = 0;
  std::vector<int64_t> steps;
};

ImportedStepFacts ImportStepFacts(const std::string& path) {
  auto profiles = ImportFile(BuiltinImporters(), path);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  ImportedStepFacts facts;
  if (!profiles.ok() || profiles->size() != 1) return facts;
  const Profile& p = profiles->front();
  facts.events = p.import_counters.at("kineto_events");
  facts.kernels = p.kernels.size();
  for (const StepAnnotation& step : p.steps) facts.steps.push_back(step.step_number);
  std::sort(facts.steps.begin(), facts.steps.end());
  return facts;
}

void ExpectRealStepRemoved(const char* relative, int64_t step, int expected_events, std::vector<int64_t> kept_steps) {
  SCOPED_TRACE(relative);
  const std::string path = CopyTraceToTemp(relative, "step_removal_real");
  const std::string before = testing::ReadFileOrDie(path);
  const ImportedStepFacts facts_before = ImportStepFacts(path);
  auto removed = RemoveProfilerStep(path, step);
  ASSERT_TRUE(removed.ok()) << removed.status().message();
  EXPECT_TRUE(*removed);
  int blocks = 0;
  const std::string after = testing::ReadFileOrDie(path);
  EXPECT_TRUE(after == WithoutStepObjects(before, "ProfilerStep#" + std::to_string(step), &blocks));
  EXPECT_EQ(blocks, expected_events);
  const ImportedStepFacts facts_after = ImportStepFacts(path);
  EXPECT_EQ(facts_after.events, facts_before.events - expected_events);
  EXPECT_EQ(facts_after.kernels, facts_before.kernels);
  EXPECT_EQ(facts_after.steps, kept_steps);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()),
                          std::filesystem::directory_iterator()),
            1);  // no temporary file left beside it
}

TEST(ProfilerStepRemoval, RealTraceLosesTheCpuAndGpuRangesOfTheStepAndNoOtherByte) {
  ExpectRealStepRemoved(kMi250Trace, 1, 2, {2});
}

TEST(ProfilerStepRemoval, RealTraceLosesTheOpenStepOnly) {
  ExpectRealStepRemoved(kMi250Trace, 2, 1, {1});
  ExpectRealStepRemoved(kSampledRankTrace, 552, 1, {551});
}

TEST(ProfilerStepRemoval, AbsentStepLeavesTheFileUntouched) {
  const std::string path = CopyTraceToTemp(kMi250Trace, "step_removal_absent");
  const std::string before = testing::ReadFileOrDie(path);
  struct stat original {};
  ASSERT_EQ(::stat(path.c_str(), &original), 0);
  for (int64_t step : {3, 10, 0, -1}) {  // #10 and #0 must not match #1's prefix or suffix
    auto removed = RemoveProfilerStep(path, step);
    ASSERT_TRUE(removed.ok()) << removed.status().message();
    EXPECT_FALSE(*removed) << step;
  }
  struct stat now {};
  ASSERT_EQ(::stat(path.c_str(), &now), 0);
  EXPECT_EQ(now.st_ino, original.st_ino);  // never rewritten
  EXPECT_TRUE(testing::ReadFileOrDie(path) == before);
}

TEST(ProfilerStepRemoval, FilesThatAreNoKinetoObjectAreLeftAsTheyAre) {
  const std::string dir = testing::MakeTempDir("step_removal_not_traces");
  const std::string step = R"({"ph": "X", "name": "ProfilerStep#3", "ts": 1, "dur": 2})";
  for (const std::string& content :
       {std::string("not json"), std::string(), "[" + step + "]", R"({"other": [)" + step + "]}",
        R"({"traceEvents": 5, "x": )" + step + "}", R"({"traceEvents": [)" + step + ", ",
        R"({"traceEvents": [)" + step + "]} trailing", std::string(R"({"traceEvents": []})")}) {
    const std::string path = dir + "/trace.json";
    WriteStepTraceFile(path, content);
    auto removed = RemoveProfilerStep(path, 3);
    ASSERT_TRUE(removed.ok()) << content << ": " << removed.status().message();
    EXPECT_FALSE(*removed) << content;
    EXPECT_EQ(testing::ReadFileOrDie(path), content);
  }
}

// The edited text of `input`, after removing ProfilerStep#3; it must be valid JSON.
std::string EditedStepText(const std::string& input, bool* removed) {
  static int counter = 0;
  const std::string path = testing::MakeTempDir("step_removal_" + std::to_string(counter++)) + "/trace.json";
  WriteStepTraceFile(path, input);
  auto result = RemoveProfilerStep(path, 3);
  EXPECT_TRUE(result.ok()) << result.status().message();
  *removed = result.ok() && *result;
  const std::string output = testing::ReadFileOrDie(path);
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  EXPECT_EQ(parser.parse(simdjson::padded_string(output)).get(element), simdjson::SUCCESS) << output;
  return output;
}

TEST(ProfilerStepRemoval, OneCommaGoesWithEachEventWhereverItStands) {
  const std::string s = R"({"ph":"X","name":"ProfilerStep#3"})";
  const std::string a = R"({"ph":"X","name":"a"})";
  const std::string b = R"({"ph":"i","name":"b"})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[" + s + ",\n " + a + "]", "[\n " + a + "]"},                                  // first
      {"[" + a + " ,\n" + s + "\n]", "[" + a + " \n\n]"},                                // last
      {"[" + a + ", " + s + ", " + b + "]", "[" + a + ",  " + b + "]"},                 // middle
      {"[ " + s + " ]", "[  ]"},                                                         // only
      {"[" + s + "," + s + "]", "[]"},                                                   // all
      {"[" + a + "," + s + "," + s + "]", "[" + a + "]"},                                // trailing run
      {"[" + s + "," + a + "," + s + "," + b + "," + s + "]", "[" + a + "," + b + "]"},  // alternating
  };
  for (const auto& [events, expected] : cases) {
    bool removed = false;
    const std::string output = EditedStepText(R"({"schemaVersion": 1, "traceEvents": )" + events + R"(, "x": 2})", &removed);
    EXPECT_TRUE(removed) << events;
    EXPECT_EQ(output, R"({"schemaVersion": 1, "traceEvents": )" + expected + R"(, "x": 2})");
  }
}

TEST(ProfilerStepRemoval, NamesAreComparedAsDecodedJsonStrings) {
  const std::string kept_a = R"({"ph": "X", "name": "ProfilerStep#3\"", "args": {"name": "ProfilerStep#3"}})";
  const std::string kept_b = R"({"ph": "X", "name": "op", "args": {"ph": "X", "name": "ProfilerStep#3"}})";
  const std::string kept_c = R"({"ph": "i", "name": "ProfilerStep#3"})";
  const std::string kept_d = R"({"ph": "X", "name": "ProfilerStep#30", "x": "a\\", "y": "\\\"ProfilerStep#3"})";
  const std::string gone_a = R"({"ph": "\u0058", "n\u0061me": "Profiler\u0053tep#3", "ts": 1.50})";
  const std::string gone_b = R"({"name": "ProfilerStep#3", "args": {"s": "\"}{"}, "ph": "X"})";
  bool removed = false;
  const std::string output = EditedStepText(R"({"traceEvents": [)" + kept_a + "," + gone_a + "," + kept_b + "," + kept_c +
                                                "," + gone_b + "," + kept_d + "]}",
                                            &removed);
  EXPECT_TRUE(removed);
  EXPECT_EQ(output, R"({"traceEvents": [)" + kept_a + "," + kept_b + "," + kept_c + "," + kept_d + "]}");
}

TEST(ProfilerStepRemoval, BytesThatAreNotUtf8AreCopiedThrough) {
  const std::string odd = "\xff\xfe caf\xc3\xa9 \x80";
  const std::string kept = R"({"ph": "X", "name": "op )" + odd + R"(", "ts": 1e3})";
  const std::string gone = R"({"ph": "X", "name": "ProfilerStep#3", "args": {"note": ")" + odd + R"("}})";
  const std::string dir = testing::MakeTempDir("step_removal_bytes");
  const std::string path = dir + "/trace.json";
  WriteStepTraceFile(path, R"({"traceEvents": [)" + kept + ",\n" + gone + "\n]}");
  auto removed = RemoveProfilerStep(path, 3);
  ASSERT_TRUE(removed.ok()) << removed.status().message();
  EXPECT_TRUE(*removed);
  EXPECT_TRUE(testing::ReadFileOrDie(path) == R"({"traceEvents": [)" + kept + "\n\n]}");
}

TEST(ProfilerStepRemoval, UnreadablePathsAreErrorsNamingThem) {
  const std::string dir = testing::MakeTempDir("step_removal_errors");
  auto missing = RemoveProfilerStep(dir + "/absent.json", 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), dir + "/absent.json: no such file");
  auto directory = RemoveProfilerStep(dir, 3);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().message().rfind(dir + ": ", 0), 0u) << directory.status().message();
}

}  // namespace
}  // namespace kraken
