#include "importers/registry.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/testing/test_data.h"

namespace kraken {
namespace {

TEST(RegistryTest, EmptyInputIsAOneLineError) {
  auto result = ImportBuffer(BuiltinImporters(), "empty.json", "");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "empty.json: file is empty");
}

TEST(RegistryTest, BinaryInputNamesTheFile) {
  std::string binary("\x7f" "ELF\x02\x01\x01\0\0\0\0\0", 12);
  auto result = ImportBuffer(BuiltinImporters(), "a.out", binary);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(result.status().message().find("a.out: not a format kraken reads (the content is binary data"),
            std::string::npos)
      << result.status().message();
}

TEST(RegistryTest, UnknownForcedFormatIsRejected) {
  ImportOptions options;
  options.forced_format = "nope";
  auto result = ImportBuffer(BuiltinImporters(), "x", "{}", options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("unknown format 'nope'"), std::string::npos);
}

TEST(RegistryTest, TarArchiveYieldsOneProfilePerRank) {
  auto result = ImportFile(BuiltinImporters(), testing::DataPath("kineto/param/dlrm_kineto.tar.gz"));
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->size(), 8u);
  std::vector<int64_t> ranks;
  for (const auto& profile : *result) {
    ASSERT_TRUE(profile.metadata.rank.has_value());
    ranks.push_back(*profile.metadata.rank);
    EXPECT_EQ(profile.metadata.world_size, 8);
    EXPECT_NE(profile.metadata.source.find("dlrm_kineto.tar.gz:dlrm_kineto/worker"), std::string::npos);
  }
  std::sort(ranks.begin(), ranks.end());
  EXPECT_EQ(ranks, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

}  // namespace
}  // namespace kraken
