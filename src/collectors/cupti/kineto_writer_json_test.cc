// The writer's output read by a strict JSON parser (simdjson), as Perfetto and HTA read it:
// escaped strings, a finished trace, and a trace cut anywhere once its partial last line is
// dropped and "]}" appended. A binary of its own: with the importers linked in, a simdjson
// DOM parser here would share inline code with theirs, which the sanitizer build miscompiles.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "base/testing/test_data.h"
#include "collectors/cupti/kineto_writer.h"

namespace kraken::cupti {
namespace {

TEST(KinetoWriterJsonTest, StringsAreValidJsonForStrictReaders) {
  std::string text = "a\"b\\c\n\x01 \xc3\xa9 \xff end";  // quote, backslash, controls, é, a stray byte
  std::string json = JsonString(text);
  EXPECT_EQ(json, "\"a\\\"b\\\\c\\u000a\\u0001 \xc3\xa9 ? end\"");
  simdjson::dom::parser parser;
  std::string_view parsed;
  ASSERT_EQ(parser.parse(json).get_string().get(parsed), simdjson::SUCCESS);
  EXPECT_EQ(parsed, "a\"b\\c\n\x01 \xc3\xa9 ? end");
  EXPECT_EQ(JsonNumber(0.25), "0.25");
  EXPECT_EQ(JsonNumber(1.0 / 0.0), "null");
}

TraceEvent KernelEvent(int64_t i) {
  TraceEvent e;
  e.category = "kernel";
  e.name = "void gemm<float>(float const*, int) \"q\"";
  e.tid = 7;
  e.start_ns = 1000 * i;
  e.duration_ns = 500;
  e.AddInt("correlation", i + 1);
  e.AddDim3("grid", 80, 2, 1);
  e.AddDouble("blocks per SM", 0.75);
  e.flow = FlowPhase::kFinish;
  e.flow_id = i + 1;
  return e;
}

TEST(KinetoWriterJsonTest, FinishedAndCutTracesAreStrictJson) {
  std::string dir = testing::MakeTempDir("kineto_writer_json");
  std::string error;
  auto finished = KinetoTraceWriter::Open(dir + "/finished.json", 0, {{"host_name", JsonString("n")}}, &error);
  ASSERT_NE(finished, nullptr) << error;
  {
    auto cut = KinetoTraceWriter::Open(dir + "/cut.json", 0, {}, &error);
    ASSERT_NE(cut, nullptr) << error;
    for (int64_t i = 0; i < 100; ++i) {
      finished->Emit(KernelEvent(i));
      cut->Emit(KernelEvent(i));
    }
    ASSERT_TRUE(cut->Flush());  // destroyed without Finish: what a killed process leaves
  }
  ASSERT_TRUE(finished->Finish({{"deviceProperties", "[{\"id\": 0, \"numSms\": 132}]"}}));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(dir + "/finished.json").get(doc), simdjson::SUCCESS);
  EXPECT_EQ(doc["traceEvents"].get_array().size(), 200u);  // each kernel with its flow event

  std::string text = testing::ReadFileOrDie(dir + "/cut.json");
  ASSERT_EQ(parser.parse(text + "]}").get(doc), simdjson::SUCCESS);
  EXPECT_EQ(doc["traceEvents"].get_array().size(), 200u);
  // Cut anywhere in the events: without its partial last line, plus "]}", it is JSON.
  const size_t events_start = text.find("\"traceEvents\": [") + 16;
  for (size_t cut = events_start; cut < text.size(); cut += 97) {
    std::string prefix = text.substr(0, cut);
    size_t last_newline = prefix.rfind('\n');
    if (last_newline >= events_start) prefix.resize(last_newline);
    ASSERT_EQ(parser.parse(prefix + "]}").error(), simdjson::SUCCESS) << cut;
  }
}

// A counter event ("ph": "C", the device memory of activity_memory.cc): Chrome's trace format
// wants a ts and the values as numeric args, and no dur.
TEST(KinetoWriterJsonTest, CounterEventsHaveTheirValuesAsArgs) {
  std::string dir = testing::MakeTempDir("kineto_writer_counter");
  std::string error;
  auto writer = KinetoTraceWriter::Open(dir + "/counter.json", 1'000'000'000, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  TraceEvent e;
  e.phase = 'C';
  e.category = "cuda_memory";
  e.name = "CUDA device memory";
  e.pid = 1;
  e.start_ns = 1'000'002'500;
  e.AddInt("bytes", int64_t{81} << 30);
  writer->Emit(e);
  ASSERT_TRUE(writer->Finish({}));
  std::string text = testing::ReadFileOrDie(dir + "/counter.json");
  EXPECT_NE(text.find("\n{\"ph\":\"C\",\"cat\":\"cuda_memory\",\"name\":\"CUDA device memory\",\"pid\":1,\"tid\":0,"
                      "\"ts\":2.500,\"args\":{\"bytes\":86973087744}}\n"),
            std::string::npos)
      << text;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS);
  simdjson::dom::element event = doc["traceEvents"].at(0);
  EXPECT_EQ(std::string_view(event["ph"]), "C");
  EXPECT_EQ(int64_t(event["args"]["bytes"]), int64_t{81} << 30);
  EXPECT_EQ(event["dur"].error(), simdjson::NO_SUCH_FIELD);
}

}  // namespace
}  // namespace kraken::cupti
