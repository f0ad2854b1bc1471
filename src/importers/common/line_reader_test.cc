// LineReader: line numbers, unterminated last lines, chunk boundaries, overlong lines.
#include "importers/common/line_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kraken::prometheus {
namespace {

struct ReadLine {
  std::string text;
  size_t number;
  bool terminated;
  bool overlong;
};

std::vector<ReadLine> ReadLines(std::string data) {
  std::unique_ptr<ByteStream> stream = MakeMemoryStream(std::move(data));
  LineReader reader(*stream);
  std::vector<ReadLine> lines;
  std::string_view line;
  while (true) {
    Result<bool> more = reader.Next(&line);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !*more) break;
    lines.push_back({std::string(line), reader.line_number(), reader.terminated(), reader.overlong()});
  }
  return lines;
}

TEST(LineReaderTest, LinesNumbersAndTheUnterminatedLastLine) {
  std::vector<ReadLine> lines = ReadLines("a 1\r\n\nb 2");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "a 1\r");  // '\r' is left to the parser
  EXPECT_EQ(lines[1].text, "");
  EXPECT_EQ(lines[2].text, "b 2");
  EXPECT_EQ(lines[2].number, 3u);
  EXPECT_TRUE(lines[1].terminated);
  EXPECT_FALSE(lines[2].terminated);
  EXPECT_TRUE(ReadLines("").empty());
  EXPECT_EQ(ReadLines("x\n").size(), 1u);
}

TEST(LineReaderTest, LinesAcrossChunkBoundaries) {
  std::string data;
  for (int i = 0; i < 20000; ++i) data += "metric_" + std::to_string(i) + " " + std::to_string(i) + "\n";
  std::vector<ReadLine> lines = ReadLines(data);
  ASSERT_EQ(lines.size(), 20000u);
  EXPECT_EQ(lines[12345].text, "metric_12345 12345");
  EXPECT_EQ(lines.back().number, 20000u);
}

TEST(LineReaderTest, OverlongLineIsReportedOnceAndSkipped) {
  std::string data = "first 1\n" + std::string(LineReader::kMaxLineBytes + 10, 'x') + "\nlast 2\n";
  std::vector<ReadLine> lines = ReadLines(data);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[1].overlong);
  EXPECT_EQ(lines[1].text, "");
  EXPECT_EQ(lines[2].text, "last 2");
  EXPECT_EQ(lines[2].number, 3u);
  // Without any newline at all (binary junk): one overlong line, then the end.
  lines = ReadLines(std::string(3 * LineReader::kMaxLineBytes, '\x01'));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].overlong);
}

TEST(LineReaderTest, ARejectedLastRowWithoutNewlineIsACutFile) {
  for (const char* data : {"h\n1,2\n3,", "h\n1,2\n3,\n"}) {
    std::unique_ptr<ByteStream> stream = MakeMemoryStream(data);
    LineReader reader(*stream);
    std::string_view line;
    while (true) {
      Result<bool> more = reader.Next(&line);
      ASSERT_TRUE(more.ok());
      if (!*more) break;
    }
    EXPECT_TRUE(reader.CheckLastRowComplete(false).ok());
    Status status = reader.CheckLastRowComplete(true);
    if (reader.terminated()) {
      EXPECT_TRUE(status.ok()) << data;  // one bad row, counted by the importer
    } else {
      EXPECT_EQ(status.message(), "line 3: file ends inside a row (truncated?)");
    }
  }
}

}  // namespace
}  // namespace kraken::prometheus
