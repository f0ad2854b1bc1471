#include "base/byte_stream.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "base/testing/test_data.h"

namespace kraken {
namespace {

std::string Gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(ByteStreamTest, DecompressesConcatenatedGzipMembers) {
  std::string both = Gzip("hello ") + Gzip("world");
  auto stream = MakeGzipStream(MakeMemoryStream(both));
  auto all = ReadAll(*stream);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all, "hello world");
}

TEST(ByteStreamTest, TruncatedGzipIsAnError) {
  std::string data(100000, 'x');
  std::string gz = Gzip(data);
  auto stream = MakeGzipStream(MakeMemoryStream(gz.substr(0, gz.size() / 2)));
  auto all = ReadAll(*stream);
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("truncated"), std::string::npos);
}

TEST(ByteStreamTest, CorruptGzipIsAnError) {
  std::string gz = Gzip(std::string(5000, 'y'));
  for (size_t i = 12; i < gz.size() - 8; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  auto all = ReadAll(*MakeGzipStream(MakeMemoryStream(gz)));
  EXPECT_FALSE(all.ok());
}

TEST(ByteStreamTest, ReadUpToStopsAtTheLimitAndAllocatesForWhatArrives) {
  std::string data;
  for (int i = 0; data.size() < 300000; ++i) data += std::to_string(i) + ',';
  // Through gzip, whose reads come in pieces smaller than asked.
  auto head = ReadUpTo(*MakeGzipStream(MakeMemoryStream(Gzip(data))), 200001);
  ASSERT_TRUE(head.ok()) << head.status().message();
  EXPECT_EQ(*head, data.substr(0, 200001));
  // A ceiling far above the input: all of it, in a buffer sized by the input, not by the
  // ceiling (mig-plan's CSV limit is 256 MiB; this one would be 1 GiB).
  auto all = ReadUpTo(*MakeMemoryStream(data), size_t{1} << 30);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(*all, data);
  EXPECT_LT(all->capacity(), 4 * data.size());
  auto none = ReadUpTo(*MakeMemoryStream(""), 4096);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(ByteStreamTest, PrefixedStreamServesHeadThenRest) {
  auto stream = MakePrefixedStream("ab", MakeMemoryStream("cd"));
  EXPECT_EQ(*ReadAll(*stream), "abcd");
}

TEST(ByteStreamTest, SizeLeftIsKnownForBuffersAndRegularFilesOnly) {
  auto memory = MakePrefixedStream("ab", MakeMemoryStream("cdef"));
  EXPECT_EQ(memory->size_left(), 6u);
  char two[2];
  ASSERT_EQ(*memory->Read(two, 2), 2u);
  EXPECT_EQ(memory->size_left(), 4u);
  std::string path = testing::DataPath("kineto/hta/call_stack/backward_thread.json");
  auto file = OpenFileStream(path);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->size_left(), testing::ReadFileOrDie(path).size());
  auto gzip = MakeGzipStream(MakeMemoryStream(Gzip("abc")));
  EXPECT_EQ(gzip->size_left(), std::nullopt);  // only the compressed size is known
  auto device = OpenFileStream("/dev/null");  // not a regular file: no size, like a pipe
  ASSERT_TRUE(device.ok());
  EXPECT_EQ((*device)->size_left(), std::nullopt);
}

TEST(ByteStreamTest, MissingFileIsNotFound) {
  auto file = OpenFileStream("/nonexistent/kraken/file");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
}

TEST(ByteStreamTest, ReadsRealGzipTraceCompletely) {
  auto file = OpenFileStream(testing::DataPath("kineto/hta/trace_compare/base/base.json.gz"));
  ASSERT_TRUE(file.ok());
  auto all = ReadAll(*MakeGzipStream(std::move(file).value()));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->front(), '{');
  EXPECT_NE(all->find("traceEvents"), std::string::npos);
}

}  // namespace
}  // namespace kraken
