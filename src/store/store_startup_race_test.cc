// Several openers of one store file that does not exist yet, all at once (`kraken agent`
// beside `kraken profile`, eight uploaders of one server): every open succeeds, and the
// file ends up one valid store, created once (WAL, incremental auto-vacuum, every
// migration recorded once). SQLite only: the race is on the set-up of a new file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "store/pg/store_backend_testing.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_testing.h"

namespace kraken {
namespace {

// Sixteen openers on twenty fresh files: before the fix at least one opener was refused
// ("database is locked") in most runs of either test on a busy 2-core machine; with eight
// openers and six files, in one run out of five.
constexpr int kStartupRaceOpeners = 16;
constexpr int kStartupRaceRounds = 20;

// One opener's whole use of the store: open (creating it if nobody has yet) and write a
// row of its own, so the connection each opener got is shown to work, not only to exist.
Status OpenAndWriteOnce(const std::string& path, int opener) {
  KRAKEN_ASSIGN_OR_RETURN(auto store, ProfileStore::Open(path));
  LegacyWorkloadRecord record;
  record.workload_id = "opener-" + std::to_string(opener);
  record.kernel_type = "MIXED";
  record.compute_ratio = 1.0;
  record.description = "one of the openers racing on a new store";
  record.source = "manual";
  return store->PutLegacyWorkload(record);
}

// The store the openers made: one kraken store at the newest schema, in WAL mode with
// incremental auto-vacuum (set before its first table), each migration applied once, and
// every opener's row in it.
void ExpectOneValidStore(const std::string& path) {
  using store::testing::QueryText;
  EXPECT_EQ(QueryText(path, "PRAGMA application_id"), std::to_string(store::kKrakenApplicationId));
  EXPECT_EQ(QueryText(path, "PRAGMA user_version"), std::to_string(store::kSchemaVersion));
  EXPECT_EQ(QueryText(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(QueryText(path, "PRAGMA auto_vacuum"), "2");  // 2: incremental
  EXPECT_EQ(QueryText(path, "PRAGMA quick_check"), "ok");
  EXPECT_EQ(store::testing::CountRows(path, "schema_migrations"), store::kSchemaVersion);
  EXPECT_EQ(store::testing::CountRows(path, "legacy_workloads"), kStartupRaceOpeners);
}

// A forked opener: blocks on `gate_fd` until the parent closes the gate's write end (EOF
// releases every opener at once), opens and writes; exits 0, or 1 after writing one line
// saying why to `report_fd` (short enough for one atomic pipe write).
[[noreturn]] void OpenAtTheGate(const std::string& path, int gate_fd, int report_fd, int opener) {
  char byte = 0;
  (void)!read(gate_fd, &byte, 1);
  Status status = OpenAndWriteOnce(path, opener);
  if (status.ok()) _exit(0);
  std::string line = "opener " + std::to_string(opener) + ": " + status.message().substr(0, 300) + "\n";
  (void)!write(report_fd, line.data(), line.size());
  _exit(1);
}

// Forks the openers of `path`, releases them together and returns what failed ("" when
// every one of them exited 0).
std::string RaceForkedOpeners(const std::string& path) {
  int gate[2], report[2];
  if (pipe(gate) != 0 || pipe(report) != 0) return "pipe failed";
  std::vector<pid_t> openers;
  for (int opener = 0; opener < kStartupRaceOpeners; ++opener) {
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) {
      close(gate[1]);
      close(report[0]);
      OpenAtTheGate(path, gate[0], report[1], opener);
    }
    openers.push_back(pid);
  }
  close(report[1]);
  close(gate[0]);
  close(gate[1]);  // the start: every opener's read returns
  std::string failures;
  char buffer[512];
  for (ssize_t n; (n = read(report[0], buffer, sizeof(buffer))) > 0;) failures.append(buffer, static_cast<size_t>(n));
  close(report[0]);
  if (openers.size() != static_cast<size_t>(kStartupRaceOpeners)) failures += "fork failed\n";
  for (pid_t pid : openers) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
      failures += "opener pid " + std::to_string(pid) + " did not exit normally\n";
    else if (WEXITSTATUS(status) != 0 && failures.empty())
      failures += "opener pid " + std::to_string(pid) + " exited " + std::to_string(WEXITSTATUS(status)) + "\n";
  }
  return failures;
}

TEST(StoreStartupRaceTest, ProcessesOpeningANewStoreAtOnceAllSucceed) {
  for (int round = 0; round < kStartupRaceRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::string path = store::testing::NewStoreLocation(store::testing::StoreBackend::kSqlite,
                                                        "store_startup_race_processes");
    std::string failures = RaceForkedOpeners(path);
    ASSERT_EQ(failures, "");
    ExpectOneValidStore(path);
  }
}

TEST(StoreStartupRaceTest, ThreadsOpeningANewStoreAtOnceAllSucceed) {
  for (int round = 0; round < kStartupRaceRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::string path = store::testing::NewStoreLocation(store::testing::StoreBackend::kSqlite,
                                                        "store_startup_race_threads");
    std::barrier start(kStartupRaceOpeners);
    std::vector<Status> results(kStartupRaceOpeners, Status::Ok());
    std::vector<std::thread> openers;
    for (int opener = 0; opener < kStartupRaceOpeners; ++opener)
      openers.emplace_back([&, opener] {
        start.arrive_and_wait();  // each thread its own connection, all opening at once
        results[static_cast<size_t>(opener)] = OpenAndWriteOnce(path, opener);
      });
    for (std::thread& t : openers) t.join();
    for (int opener = 0; opener < kStartupRaceOpeners; ++opener)
      ASSERT_TRUE(results[static_cast<size_t>(opener)].ok())
          << "opener " << opener << ": " << results[static_cast<size_t>(opener)].message();
    ExpectOneValidStore(path);
  }
}

}  // namespace
}  // namespace kraken
