#include "base/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kraken {
namespace {

TEST(JsonWriterTest, WritesNestedDocumentsCompactly) {
  JsonWriter json(false);
  json.BeginObject().Field("name", "a\"b\n").Key("values").BeginArray().Int(1).Number(2.5).Null().EndArray();
  json.Field("ok", true).Key("nan").Number(std::nan("")).EndObject();
  EXPECT_EQ(json.str(), R"({"name":"a\"b\n","values":[1,2.5,null],"ok":true,"nan":null})");
}

TEST(JsonWriterTest, PrettyPrintsWithTwoSpaces) {
  JsonWriter json(true);
  json.BeginObject().Field("a", 1).Key("b").BeginArray().EndArray().EndObject();
  EXPECT_EQ(json.str(), "{\n  \"a\": 1,\n  \"b\": []\n}");
}

TEST(JsonWriterTest, KeepsPrecisionOfMicrosecondFigures) {
  JsonWriter json(false);
  json.BeginArray().Number(591532.125).Number(55.51234).Number(1e-7).EndArray();
  EXPECT_EQ(json.str(), "[591532.125,55.51234,1e-07]");
}

TEST(JsonWriterTest, ExactNumbersReadBackBitForBit) {
  JsonWriter json(false);
  json.BeginArray().ExactNumber(0.1).ExactNumber(312.457).ExactNumber(1.0 / 3).ExactNumber(85520809984.0);
  json.ExactNumber(-0.0).ExactNumber(std::nan("")).EndArray();
  EXPECT_EQ(json.str(), "[0.1,312.457,0.3333333333333333,85520809984,-0,null]");
}

TEST(JsonWriterTest, NestedPartsSplicedWithRawValueAreTheBytesOfWritingInPlace) {
  auto write_part = [](JsonWriter& json, int n) {
    json.BeginObject().Field("n", n).Key("list").BeginArray().Int(n).Int(n + 1).EndArray().EndObject();
  };
  for (bool pretty : {true, false}) {
    JsonWriter in_place(pretty);
    in_place.BeginObject().Field("a", 1).Key("parts").BeginArray();
    for (int n : {1, 2, 3}) write_part(in_place, n);
    in_place.EndArray().EndObject();
    JsonWriter spliced(pretty);
    spliced.BeginObject().Field("a", 1).Key("parts").BeginArray();
    for (int n : {1, 2, 3}) {
      JsonWriter part = JsonWriter::Nested(2, pretty);
      write_part(part, n);
      spliced.RawValue(part.str());
    }
    spliced.EndArray().EndObject();
    EXPECT_EQ(spliced.str(), in_place.str()) << pretty;
  }
}

}  // namespace
}  // namespace kraken
