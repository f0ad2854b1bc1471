#include "base/csv_reader.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

TEST(CsvReaderTest, QuotedFieldsKeepCommasQuotesAndNewlines) {
  CsvReader reader("\"ID\",\"Kernel Name\"\r\n\"0\",\"void f<a, b>(\"\"x\"\")\"\n\"1\",\"two\nlines\"\n");
  std::vector<std::string> fields;
  ASSERT_TRUE(reader.Next(&fields));
  EXPECT_EQ(fields, (std::vector<std::string>{"ID", "Kernel Name"}));
  ASSERT_TRUE(reader.Next(&fields));
  EXPECT_EQ(fields[1], "void f<a, b>(\"x\")");
  EXPECT_EQ(reader.line(), 2u);
  ASSERT_TRUE(reader.Next(&fields));
  EXPECT_EQ(fields[1], "two\nlines");
  EXPECT_EQ(reader.line(), 3u);
  EXPECT_FALSE(reader.Next(&fields));
}

TEST(CsvReaderTest, ReportsUnterminatedQuote) {
  CsvReader reader("a,\"open\n");
  std::vector<std::string> fields;
  ASSERT_TRUE(reader.Next(&fields));
  EXPECT_TRUE(reader.unterminated_quote());
}

TEST(CsvReaderTest, SkipsByteOrderMark) {
  CsvReader reader("\xEF\xBB\xBFName,Profile\n");
  std::vector<std::string> fields;
  ASSERT_TRUE(reader.Next(&fields));
  EXPECT_EQ(fields[0], "Name");
}

}  // namespace
}  // namespace kraken
