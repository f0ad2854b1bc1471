// End-to-end tests of issue 15's hostile inputs: output targets that are not regular files,
// standard output that cannot be written, non-finite numbers, unbounded reads, huge
// workload lists and damaged stores. Each gets kraken's one-line error (exit 2) or a
// correct result, never a crash, a hang or a device node turned into a file.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string HostileTrace() { return testing::DataPath("kineto/hta/call_stack/backward_thread.json"); }

TEST(HostileInputCliTest, OutputToDeviceIsWrittenInPlace) {
  // Before: kraken made DEVICE.tmp.PID and renamed it over the device node (as root: the
  // node became a regular file), or could not create it in /dev (anyone else: exit 2). A
  // private copy of /dev/null's node, so that a regression cannot break the machine's.
  std::string dir = testing::MakeTempDir("hostile_device");
  std::string device = dir + "/null";
  if (::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) device = "/dev/null";  // not root
  RunResult r = RunKraken("analyze --json -o " + device + " " + HostileTrace());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << device << " is no longer a device";
  std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader ends the pipe; kraken writes into it rather than renaming over it.
  RunResult piped = RunKraken("analyze --json -o " + fifo + " " + HostileTrace() + " & cat " + fifo + " | head -c 1; wait");
  EXPECT_EQ(piped.out, "{");
  struct stat fifo_st {};
  ASSERT_EQ(::stat(fifo.c_str(), &fifo_st), 0);
  EXPECT_TRUE(S_ISFIFO(fifo_st.st_mode));
}

TEST(HostileInputCliTest, StandardOutputWriteErrorExits2) {
  for (const std::string& command : {"analyze --json " + HostileTrace(), std::string("formats")}) {
    RunResult r = RunKraken(command + " > /dev/full");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_EQ(r.err.rfind("kraken: error: standard output: write failed", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  }
}

TEST(HostileInputCliTest, NonFiniteNumbersAreRefused) {
  ExpectOneLineError(RunKraken("mig-plan --workload x:inf:0.5"), "--workload memory 'inf'");
  ExpectOneLineError(RunKraken("mig-plan --workload x:1e999:0.5"), "--workload memory");
  ExpectOneLineError(RunKraken("mig-plan --workload x:1:nan"), "--workload SM fraction 'nan'");
  ExpectOneLineError(RunKraken("mig-plan --headroom nan --workload a:1:0.1"), "--headroom expects");
  std::string two = testing::DataPath("orion/resnet50_4_fwd.csv") + " " + testing::DataPath("orion/resnet50_32_fb1.csv");
  ExpectOneLineError(RunKraken("colocate --timeslice-ms nan " + two), "finite");
  ExpectOneLineError(RunKraken("colocate --timeslice-ms inf " + two), "finite");
  ExpectOneLineError(RunKraken("colocate --rate resnet50_4_fwd=inf " + two), "--rate expects a positive number");
  ExpectOneLineError(RunKraken("colocate --sm-split nan,50 " + two), "--sm-split expects");
  ExpectOneLineError(RunKraken("analyze --thresholds 0,inf " + HostileTrace()), "--thresholds expects");
  std::string csv = testing::MakeTempDir("hostile_nan_csv") + "/plan.csv";
  std::ofstream(csv) << "name,memory_gib,sm_fraction\na,nan,0.5\n";
  ExpectOneLineError(RunKraken("mig-plan " + csv), "memory_gib must be a number");
}

TEST(HostileInputCliTest, SmallFileReadsAreBounded) {
  // Before: /dev/zero grew without end; a directory was an empty config.
  ExpectOneLineError(RunKraken("config --print --config /dev/zero"), "/dev/zero: the config file is not a regular file");
  std::string dir = testing::MakeTempDir("hostile_config_dir");
  ExpectOneLineError(RunKraken("config --print --config " + dir), "the config file is not a regular file");
  std::string big = dir + "/big.yaml";
  std::ofstream(big) << "# " << std::string(2 * 1024 * 1024, 'x') << "\n";
  ExpectOneLineError(RunKraken("config --print --config " + big), "larger than the limit");
  RunResult token = RunKraken("serve --port 0 --token-file /dev/zero");
  EXPECT_EQ(token.exit_code, 2) << token.err;
  EXPECT_NE(token.err.find("/dev/zero: the token file is not a regular file"), std::string::npos) << token.err;
}

TEST(HostileInputCliTest, HugeWorkloadListIsPlannedWithoutCrashing) {
  // Before: 58k rows overflowed the stack of the exact packing search (segfault).
  std::string csv = testing::MakeTempDir("hostile_big_plan") + "/plan.csv";
  {
    std::ofstream out(csv);
    out << "name,memory_gib,sm_fraction\n";
    for (int i = 0; i < 60000; ++i) out << "w" << i << "," << (1 + i % 9) << ",0.1" << (i % 7) << "\n";
  }
  RunResult r = RunKraken("mig-plan --json --gpu h100-sxm " + csv);
  EXPECT_EQ(r.exit_code, 0) << r.err.substr(0, 400);
  EXPECT_NE(r.out.find("\"exact\": false"), std::string::npos) << r.out.substr(0, 400);
}

// The first page of `table` in the SQLite file at `path` (1-based), or 0.
int64_t StoreTableRootPage(const std::string& path, const char* table) {
  sqlite3* db = nullptr;
  int64_t page = 0;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?", -1, &stmt, nullptr) == SQLITE_OK) {
      sqlite3_bind_text(stmt, 1, table, -1, SQLITE_STATIC);
      if (sqlite3_step(stmt) == SQLITE_ROW) page = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return page;
}

TEST(HostileInputCliTest, StorePathMustBeARegularIntactFile) {
  std::string dir = testing::MakeTempDir("hostile_store");
  std::string fifo = dir + "/store.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ExpectOneLineError(RunKraken("import --db " + fifo + " " + HostileTrace()), "store.fifo: the store must be a regular file");
  EXPECT_FALSE(std::filesystem::exists(fifo + "-journal"));
  std::string db = dir + "/kraken.db";
  RunResult first = RunKraken("import --db " + db + " " + HostileTrace());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // Damage the root page of a table that an import of a trace never reads: only an
  // integrity check notices (before: the next import exited 0 into the damaged store).
  int64_t root_page = StoreTableRootPage(db, "legacy_workloads");
  ASSERT_GT(root_page, 1);
  {
    std::fstream file(db, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>((root_page - 1) * 4096));
    std::string garbage(4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  ExpectOneLineError(RunKraken("import --db " + db + " " + testing::DataPath("orion/resnet50_4_fwd.csv")),
                     "kraken.db: the store is damaged");
}

}  // namespace
}  // namespace kraken
