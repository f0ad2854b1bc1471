// kill -9 at random moments of a live ingest leaves a readable database whose every
// listed profile is complete, and no trace of the profile being written; and a reader in
// another connection works beside a writer (WAL on SQLite, MVCC on PostgreSQL). Both
// backends.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include "base/testing/test_data.h"
#include "store/pg/store_backend_testing.h"
#include "store/store.h"
#include "store/store_testing.h"
#include "store/synthetic_node.h"

namespace kraken {
namespace {

using store::testing::MakeNodeBatch;
using store::testing::NodeShape;
using store::testing::PassTime;

// Passes per profile: 1100 fills two blocks per series, so a profile's life has a flush
// transaction (at 256 full blocks), appends in memory, and the commit transaction.
class StoreCrashTest : public store::testing::StoreBackendTest {};

constexpr uint64_t kPassesPerProfile = 1100;
constexpr int64_t kSeriesPerProfile = 248;

// The child: ingests profile after profile until killed, writing each committed id to
// `fd`. Never returns.
[[noreturn]] void IngestForever(const std::string& path, int fd) {
  auto store = ProfileStore::Open(path);
  if (!store.ok()) _exit(3);
  ProfileMetadata md;
  md.source = "nvml:crash-test";
  md.format = "nvml";
  for (int profile = 0; profile < 1000; ++profile) {
    auto id = (*store)->BeginProfile(md, {});
    if (!id.ok()) _exit(4);
    for (uint64_t pass = 0; pass < kPassesPerProfile; ++pass)
      if (!(*store)->AppendBatch(*id, MakeNodeBatch(NodeShape{}, pass, PassTime(pass))).ok()) _exit(5);
    if (!(*store)->Commit(*id).ok()) _exit(6);
    int64_t committed = *id;
    if (write(fd, &committed, sizeof(committed)) != sizeof(committed)) _exit(7);
  }
  _exit(0);
}

TEST_P(StoreCrashTest, KillDuringIngestLeavesOnlyCompleteProfiles) {
  std::string path = NewStore("store_crash");
  std::mt19937 rng(20240611);  // fixed seed: the same kill delays on every run
  std::set<int64_t> reported;  // ids the children said they committed
  int64_t cleaned_up = 0;
  for (int round = 0; round < 5; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(fds[0]);
      IngestForever(path, fds[1]);
    }
    close(fds[1]);
    // Wait for a first commit of this child, then kill it a random 0-150 ms later:
    // inside an append, a flush transaction or the commit.
    int64_t id = 0;
    ASSERT_EQ(read(fds[0], &id, sizeof(id)), static_cast<ssize_t>(sizeof(id))) << "child died before a commit";
    reported.insert(id);
    int delay_ms = std::uniform_int_distribution<int>(0, 150)(rng);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "round " << round;
    while (read(fds[0], &id, sizeof(id)) == static_cast<ssize_t>(sizeof(id))) reported.insert(id);
    close(fds[0]);

    SCOPED_TRACE("round " + std::to_string(round) + ", killed after " + std::to_string(delay_ms) + " ms");
    if (IsSqlite()) {
      EXPECT_EQ(store::testing::QueryText(path, "PRAGMA integrity_check"), "ok");
    }
    // The next writable open deletes the abandoned profile.
    auto store = ProfileStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    // The child was killed with one profile begun (rarely none: between Commit and Begin).
    EXPECT_LE((*store)->cleaned_up_on_open(), 1);
    cleaned_up += (*store)->cleaned_up_on_open();
    EXPECT_EQ(store::testing::CountRows(path, "profiles WHERE complete = 0"), 0);
    auto listed = (*store)->ListProfiles();
    ASSERT_TRUE(listed.ok()) << listed.status().message();
    std::set<int64_t> listed_ids;
    for (const StoredProfileInfo& info : *listed) {
      listed_ids.insert(info.id);
      EXPECT_EQ(info.series, kSeriesPerProfile) << info.id;
      EXPECT_EQ(info.samples, kSeriesPerProfile * static_cast<int64_t>(kPassesPerProfile)) << info.id;
    }
    // Every reported commit is listed; at most one more (killed between its commit and
    // its report) may be.
    for (int64_t reported_id : reported) EXPECT_TRUE(listed_ids.count(reported_id)) << reported_id;
    EXPECT_LE(listed_ids.size(), reported.size() + 1);
    for (int64_t listed_id : listed_ids) reported.insert(listed_id);
    // No row of the killed profile is left anywhere: the rows are exactly the listed ones'.
    EXPECT_EQ(store::testing::CountRows(path, "series"), kSeriesPerProfile * static_cast<int64_t>(listed->size()));
    EXPECT_EQ(store::testing::CountRows(path, "sample_blocks"),
              3 * kSeriesPerProfile * static_cast<int64_t>(listed->size()));
    // The newest listed profile loads in full.
    auto loaded = (*store)->LoadProfile(listed->back().id);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    ASSERT_EQ(loaded->series.size(), static_cast<size_t>(kSeriesPerProfile));
    EXPECT_EQ(loaded->series.back().samples.size(), kPassesPerProfile);
  }
  EXPECT_GE(reported.size(), 5u);
  EXPECT_GE(cleaned_up, 4);  // the abandoned profiles really existed and were removed
}

TEST_P(StoreCrashTest, ReaderWorksBesideAWriter) {
  std::string path = NewStore("store_concurrent");
  auto writer = ProfileStore::Open(path);
  ASSERT_TRUE(writer.ok());
  constexpr int kProfiles = 6;
  std::thread writing([&] {
    ProfileMetadata md;
    md.format = "nvml";
    for (int p = 0; p < kProfiles; ++p) {
      auto id = (*writer)->BeginProfile(md, {});
      ASSERT_TRUE(id.ok()) << id.status().message();
      for (uint64_t pass = 0; pass < kPassesPerProfile; ++pass)
        ASSERT_TRUE((*writer)->AppendBatch(*id, MakeNodeBatch(NodeShape{}, pass, PassTime(pass))).ok());
      ASSERT_TRUE((*writer)->Commit(*id).ok());
    }
  });
  auto reader = ProfileStore::Open(path, {.read_only = true, .busy_timeout_ms = 0});
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  size_t reads = 0, most_seen = 0;
  while (most_seen < static_cast<size_t>(kProfiles)) {
    // busy_timeout 0: a reader that had to wait for the writer would fail here.
    auto listed = (*reader)->ListProfiles();
    ASSERT_TRUE(listed.ok()) << listed.status().message();
    ASSERT_GE(listed->size(), most_seen);  // commits only ever add
    most_seen = listed->size();
    if (listed->empty()) continue;
    auto loaded = (*reader)->LoadProfile(listed->back().id);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    ASSERT_EQ(loaded->series.size(), static_cast<size_t>(kSeriesPerProfile));
    for (const Series& s : loaded->series) ASSERT_EQ(s.samples.size(), kPassesPerProfile);
    ++reads;
  }
  writing.join();
  EXPECT_GE(reads, 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreCrashTest, store::testing::AllStoreBackends(),
                         store::testing::StoreBackendParamName());

}  // namespace
}  // namespace kraken
