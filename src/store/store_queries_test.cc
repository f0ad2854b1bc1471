// Series queries, per-series statistics, retention, and the errors of opening a file that
// is not (or no longer) a usable kraken database.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "store/pg/store_backend_testing.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_path.h"
#include "store/store_testing.h"
#include "store/synthetic_node.h"

namespace kraken {
namespace {

using store::testing::MakeNodeBatch;
using store::testing::NodeShape;
using store::testing::PassTime;
using store::testing::SyntheticValue;

class StoreQueriesTest : public store::testing::StoreBackendTest {};

constexpr uint64_t kPasses = 3000;  // 5 minutes at 10 Hz

// A committed live profile of 2 GPUs x 1 process, kPasses passes.
int64_t IngestTwoGpus(ProfileStore& store) {
  auto id = store.BeginProfile(ProfileMetadata{}, {});
  EXPECT_TRUE(id.ok());
  for (uint64_t pass = 0; pass < kPasses; ++pass)
    EXPECT_TRUE(store.AppendBatch(*id, MakeNodeBatch(NodeShape{2, 1}, pass, PassTime(pass))).ok());
  EXPECT_TRUE(store.Commit(*id).ok());
  return *id;
}

TEST_P(StoreQueriesTest, OneMetricOfOneGpuInFullInARangeAndDownsampled) {
  auto store = ProfileStore::Open(NewStore("store_query"));
  ASSERT_TRUE(store.ok());
  int64_t id = IngestTwoGpus(**store);
  SeriesQuery query;
  query.profile_id = id;
  query.metric = Metric::kGpuUtilPct;
  query.entity.gpu_index = 1;
  query.entity.pid = -1;  // the GPU's own series, not its processes'
  auto full = (*store)->QuerySeries(query);
  ASSERT_TRUE(full.ok()) << full.status().message();
  ASSERT_EQ(full->size(), 1u);
  const SeriesQueryResult& util = full->front();
  EXPECT_EQ(util.entity.gpu_uuid, "GPU-5c1e-1");
  ASSERT_EQ(util.samples.size(), kPasses);
  for (uint64_t pass = 0; pass < kPasses; ++pass)
    ASSERT_EQ(util.samples[pass].value, SyntheticValue(Metric::kGpuUtilPct, 100, pass)) << pass;

  // Passes 1000..1999 by time: the range cuts through blocks 1 and 3 (512 samples each).
  query.start_ns = PassTime(1000);
  query.end_ns = PassTime(1999);
  auto range = (*store)->QuerySeries(query);
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->front().samples.size(), 1000u);
  EXPECT_EQ(range->front().samples.front().time_ns, PassTime(1000));
  EXPECT_EQ(range->front().samples.back().time_ns, PassTime(1999));

  // Downsampled: slices of (last - first) / N + 1 ns from the first sample in range. With
  // 10 points a slice holds ~300 samples (blocks straddle slices and are decoded); with 2
  // or 1 it holds 1500 or 3000 (whole blocks are reduced from their stored aggregates);
  // the last case cuts the range through blocks as well.
  struct Case {
    size_t points;
    uint64_t first_pass, last_pass;
  };
  for (Case c : {Case{10, 0, kPasses - 1}, Case{2, 0, kPasses - 1}, Case{1, 0, kPasses - 1}, Case{3, 700, 2900}}) {
    SCOPED_TRACE(std::to_string(c.points) + " points");
    query.start_ns = PassTime(c.first_pass);
    query.end_ns = PassTime(c.last_pass);
    query.max_points = c.points;
    auto down = (*store)->QuerySeries(query);
    ASSERT_TRUE(down.ok()) << down.status().message();
    const std::vector<DownsampledPoint>& points = down->front().points;
    ASSERT_EQ(points.size(), c.points);
    EXPECT_TRUE(down->front().samples.empty());
    TimeNs first = PassTime(c.first_pass);
    uint64_t width = static_cast<uint64_t>(PassTime(c.last_pass) - first) / c.points + 1;
    int64_t total = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      double sum = 0, lo = 1e9, hi = -1e9;
      int64_t count = 0;
      for (uint64_t pass = c.first_pass; pass <= c.last_pass; ++pass) {
        const Sample& s = util.samples[pass];
        if (static_cast<uint64_t>(s.time_ns - first) / width != i) continue;
        sum += s.value, ++count;
        lo = std::min(lo, s.value), hi = std::max(hi, s.value);
      }
      EXPECT_EQ(points[i].count, count) << i;
      EXPECT_NEAR(points[i].mean, sum / static_cast<double>(count), 1e-12 * sum) << i;
      EXPECT_EQ(points[i].min, lo) << i;
      EXPECT_EQ(points[i].max, hi) << i;
      EXPECT_EQ(points[i].time_ns, first + static_cast<TimeNs>(i * width)) << i;
      total += points[i].count;
    }
    EXPECT_EQ(total, static_cast<int64_t>(c.last_pass - c.first_pass + 1));
  }

  // Per-process series of GPU 0: one process, three metrics.
  SeriesQuery process;
  process.profile_id = id;
  process.metric = Metric::kProcessUsedMemoryBytes;
  process.entity.gpu_index = 0;
  auto used = (*store)->QuerySeries(process);
  ASSERT_TRUE(used.ok());
  ASSERT_EQ(used->size(), 1u);
  EXPECT_EQ(used->front().entity.pid, 40'000);
  EXPECT_EQ(used->front().entity.process_name, "python3");

  SeriesQuery missing = query;
  missing.profile_id = id + 1;
  EXPECT_EQ((*store)->QuerySeries(missing).status().code(), StatusCode::kNotFound);
}

TEST_P(StoreQueriesTest, SeriesStatsComeFromBlockAggregates) {
  auto store = ProfileStore::Open(NewStore("store_stats"));
  ASSERT_TRUE(store.ok());
  int64_t id = IngestTwoGpus(**store);
  auto stats = (*store)->ListSeries(id);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  ASSERT_EQ(stats->size(), 2u * (25 + 3));
  const StoredSeriesStats& power = (*stats)[28 + 6];  // GPU 1's power
  EXPECT_EQ(power.metric, Metric::kPowerW);
  EXPECT_EQ(power.entity.gpu_index, 1);
  EXPECT_EQ(power.samples, static_cast<int64_t>(kPasses));
  EXPECT_EQ(power.first_ns, PassTime(0));
  EXPECT_EQ(power.last_ns, PassTime(kPasses - 1));
  double sum = 0, lo = 1e9, hi = 0;
  for (uint64_t pass = 0; pass < kPasses; ++pass) {
    double v = SyntheticValue(Metric::kPowerW, 106, pass);
    sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
  }
  EXPECT_EQ(power.min, lo);
  EXPECT_EQ(power.max, hi);
  EXPECT_NEAR(power.mean, sum / kPasses, 1e-9);
}

TEST_P(StoreQueriesTest, RetentionDeletesOldProfilesAndTheirRows) {
  std::string path = NewStore("store_retention");
  auto store = ProfileStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto orion = ImportFile(BuiltinImporters(), testing::DataPath("orion/resnet50_4_fwd.csv"));
  ASSERT_TRUE(orion.ok());
  auto first = (*store)->SaveProfile(orion->front());
  ASSERT_TRUE(first.ok());
  int64_t live = IngestTwoGpus(**store);
  auto third = (*store)->SaveProfile(orion->front());
  ASSERT_TRUE(third.ok());
  auto info = (*store)->GetProfileInfo(*third);
  ASSERT_TRUE(info.ok());

  // Nothing is a day old yet.
  auto none = (*store)->DeleteOlderThan(std::chrono::hours(24));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0);
  // Everything created before the third profile goes: the Orion list and the live one.
  auto deleted = (*store)->DeleteCreatedBefore(info->created_ns);
  ASSERT_TRUE(deleted.ok()) << deleted.status().message();
  EXPECT_EQ(*deleted, 2);
  auto listed = (*store)->ListProfiles();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().id, *third);
  EXPECT_EQ(store::testing::CountRows(path, "kernels"), 175);  // the third's only
  EXPECT_EQ(store::testing::CountRows(path, "kernel_labels"), 175);
  EXPECT_EQ(store::testing::CountRows(path, "series"), 0);
  EXPECT_EQ(store::testing::CountRows(path, "sample_blocks"), 0);
  EXPECT_EQ((*store)->LoadProfile(live).status().code(), StatusCode::kNotFound);
  // The live profile's blocks were most of the file: the incremental vacuum gave them back
  // (PostgreSQL's autovacuum does that on its own schedule).
  if (IsSqlite()) {
    EXPECT_LT(std::stoll(store::testing::QueryText(path, "PRAGMA freelist_count")),
              std::stoll(store::testing::QueryText(path, "PRAGMA page_count")) / 4);
  }
  // Ids are never reused.
  auto fourth = (*store)->SaveProfile(orion->front());
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(*fourth, *third + 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreQueriesTest, store::testing::AllStoreBackends(),
                         store::testing::StoreBackendParamName());

TEST(StoreSqliteFileTest, UnusableFilesAreOneLineErrors) {
  std::string dir = testing::MakeTempDir("store_errors");
  // A newer schema.
  std::string newer = dir + "/newer.db";
  ASSERT_TRUE(ProfileStore::Open(newer).ok());
  store::testing::QueryText(newer, "PRAGMA user_version = 99");
  auto opened = ProfileStore::Open(newer);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(), newer + ": schema version 99 was written by a newer kraken; this one reads "
                                               "versions up to " + std::to_string(store::kSchemaVersion));
  // Another application's SQLite file.
  std::string other = dir + "/other.db";
  store::testing::QueryText(other, "CREATE TABLE notes(text)");
  opened = ProfileStore::Open(other);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(), other + ": not a kraken database (an SQLite file with other tables)");
  // Not SQLite at all: the file is left as it was.
  std::string text = dir + "/notes.txt";
  std::ofstream(text) << std::string(5000, 'x');
  opened = ProfileStore::Open(text);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(), text + ": not a kraken database (file is not a database)");
  EXPECT_EQ(testing::ReadFileOrDie(text), std::string(5000, 'x'));
  // Missing, read-only.
  opened = ProfileStore::Open(dir + "/none.db", {.read_only = true});
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kNotFound);
}

TEST(StoreSqliteFileTest, DamagedPagesAreErrorsNotCrashes) {
  std::string path = testing::MakeTempDir("store_corrupt") + "/kraken.db";
  {
    auto store = ProfileStore::Open(path);
    ASSERT_TRUE(store.ok());
    IngestTwoGpus(**store);
  }
  store::testing::QueryText(path, "PRAGMA wal_checkpoint(TRUNCATE)");
  // Overwrite everything after the first page (the header and schema survive).
  std::string bytes = testing::ReadFileOrDie(path);
  ASSERT_GT(bytes.size(), 40'000u);
  for (size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  auto store = ProfileStore::Open(path, {.read_only = true});
  Status status = store.ok() ? (*store)->LoadProfile(1).status() : store.status();
  if (store.ok() && status.ok()) status = (*store)->ListProfiles().status();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput) << status.message();
  EXPECT_NE(status.message().find("malformed"), std::string::npos) << status.message();
  EXPECT_EQ(status.message().find('\n'), std::string::npos);
}

TEST(StoreSqliteFileTest, PostgresUrlsAreShownWithoutPasswordOrOptions) {
  EXPECT_EQ(StoreLocationForDisplay("postgresql://kraken:s3cret@db.example:5432/kraken?sslmode=require&password=x"),
            "postgresql://kraken@db.example:5432/kraken");
  EXPECT_EQ(StoreLocationForDisplay("postgres://kraken@127.0.0.1/k"), "postgres://kraken@127.0.0.1/k");
  EXPECT_EQ(StoreLocationForDisplay("postgresql://db.example/k"), "postgresql://db.example/k");
  EXPECT_EQ(StoreLocationForDisplay("/var/lib/kraken/kraken.db"), "/var/lib/kraken/kraken.db");
}

TEST(StoreSqliteFileTest, DefaultPathFollowsTheEnvironment) {
  std::string dir = testing::MakeTempDir("store_default_path");
  const char* home = std::getenv("HOME");
  std::string saved_home = home != nullptr ? home : "";
  setenv("KRAKEN_STORAGE_PATH", (dir + "/explicit.db").c_str(), 1);
  EXPECT_EQ(DefaultStorePath(), dir + "/explicit.db");
  setenv("KRAKEN_STORAGE_PATH", dir.c_str(), 1);  // a folder
  EXPECT_EQ(DefaultStorePath(), dir + "/kraken.db");
  unsetenv("KRAKEN_STORAGE_PATH");
  setenv("XDG_DATA_HOME", "/data/home", 1);
  EXPECT_EQ(DefaultStorePath(), "/data/home/kraken/kraken.db");
  unsetenv("XDG_DATA_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(DefaultStorePath(), "/home/someone/.local/share/kraken/kraken.db");
  setenv("HOME", saved_home.c_str(), 1);
  // Opening for writing creates the folders.
  auto store = ProfileStore::Open(dir + "/a/b/kraken.db");
  ASSERT_TRUE(store.ok()) << store.status().message();
}

}  // namespace
}  // namespace kraken
