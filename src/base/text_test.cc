#include "base/text.h"
#include "base/text_replace.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

TEST(TextTest, ParsesHumanNumbersWithThousandsSeparators) {
  EXPECT_DOUBLE_EQ(*ParseHumanNumber("1,937,900,416"), 1937900416.0);
  EXPECT_DOUBLE_EQ(*ParseHumanNumber("5,323,503,232.00"), 5323503232.0);
  EXPECT_DOUBLE_EQ(*ParseHumanNumber("1.234.567,5"), 1234567.5);
  EXPECT_DOUBLE_EQ(*ParseHumanNumber("1,5"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseHumanNumber("764,999,991.90"), 764999991.9);
  EXPECT_DOUBLE_EQ(*ParseHumanNumber("42"), 42.0);
  EXPECT_FALSE(ParseHumanNumber("n/a").has_value());
  EXPECT_FALSE(ParseHumanNumber("1,23,4").has_value());
  EXPECT_FALSE(ParseHumanNumber("").has_value());
}

TEST(TextTest, StrictNumbersRejectTrailingText) {
  EXPECT_EQ(*ParseInt64(" 42 "), 42);
  EXPECT_FALSE(ParseInt64("42x").has_value());
  EXPECT_FALSE(ParseDouble("1.5 MB").has_value());
  EXPECT_EQ(*ParseHex("0x233010DE"), 0x233010DEu);
  EXPECT_EQ(*ParseUint64("10159970886766084423"), 10159970886766084423ull);
}

TEST(TextTest, SplitsAndCompares) {
  auto parts = SplitWhitespace("  0    631     63  ");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "631");
  EXPECT_TRUE(ContainsIgnoreCase("ncclKernel_AllReduce", "NCCL"));
  EXPECT_FALSE(ContainsIgnoreCase("elementwise", "nccl"));
  EXPECT_EQ(Split("a,,b", ',').size(), 3u);
  EXPECT_EQ(BaseName("/x/y/trace.json.gz"), "trace.json.gz");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
}

TEST(TextTest, ReplaceAllReplacesEveryMatchOnceLeftToRight) {
  EXPECT_EQ(ReplaceAll("pod=\"a\"} 1\npod=\"a\"} 2\n", "pod=\"a\"}", "pod=\"a\",team=\"t\"}"),
            "pod=\"a\",team=\"t\"} 1\npod=\"a\",team=\"t\"} 2\n");
  EXPECT_EQ(ReplaceAll("aaa", "a", "aa"), "aaaaaa");  // a `to` holding `from` is not searched again
  EXPECT_EQ(ReplaceAll("aaaa", "aa", "b"), "bb");     // matches do not overlap
  EXPECT_EQ(ReplaceAll("abc", "", "x"), "abc");
  EXPECT_EQ(ReplaceAll("abc", "abc", ""), "");
  EXPECT_EQ(ReplaceAll("", "a", "b"), "");
}

}  // namespace
}  // namespace kraken
