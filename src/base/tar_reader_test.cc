#include "base/tar_reader.h"

#include <cstring>

#include <gtest/gtest.h>

#include "base/testing/test_data.h"

namespace kraken {
namespace {

TEST(TarReaderTest, ListsTheEightRanksOfTheDlrmArchive) {
  auto file = OpenFileStream(testing::DataPath("kineto/param/dlrm_kineto.tar.gz"));
  ASSERT_TRUE(file.ok());
  auto stream = MakeGzipStream(std::move(file).value());
  auto head = ReadUpTo(*stream, 512);
  ASSERT_TRUE(head.ok());
  ASSERT_TRUE(LooksLikeTar(*head));
  TarReader tar(MakePrefixedStream(*head, std::move(stream)));
  TarReader::Member member;
  int files = 0;
  uint64_t bytes = 0;
  while (true) {
    auto more = tar.Next(&member);
    ASSERT_TRUE(more.ok()) << more.status().message();
    if (!*more) break;
    ++files;
    EXPECT_NE(member.name.find("worker"), std::string::npos) << member.name;
    // Read the first member completely, skip the others: both must work.
    if (files == 1) {
      auto data = ReadAll(*tar.OpenMember());
      ASSERT_TRUE(data.ok());
      EXPECT_EQ(data->size(), member.size_bytes);
    }
    bytes += member.size_bytes;
  }
  EXPECT_EQ(files, 8);
  EXPECT_GT(bytes, 7u * 900000u);
}

TEST(TarReaderTest, TruncatedArchiveIsAnError) {
  std::string header(512, '\0');
  std::memcpy(header.data(), "a.json", 6);
  std::memcpy(header.data() + 124, "00000001750", 11);  // 1000 bytes
  header[156] = '0';
  std::memcpy(header.data() + 257, "ustar", 5);
  TarReader tar(MakeMemoryStream(header + std::string(100, 'x')));
  TarReader::Member member;
  auto more = tar.Next(&member);
  ASSERT_TRUE(more.ok());
  ASSERT_TRUE(*more);
  auto data = ReadAll(*tar.OpenMember());
  EXPECT_FALSE(data.ok());
}

}  // namespace
}  // namespace kraken
