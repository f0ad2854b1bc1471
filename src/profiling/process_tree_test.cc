#include "profiling/process_tree.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/testing/test_data.h"

namespace kraken::profiling {
namespace {

void WriteStat(const std::string& root, int64_t pid, const std::string& comm, int64_t parent) {
  std::filesystem::create_directories(root + "/" + std::to_string(pid));
  std::ofstream(root + "/" + std::to_string(pid) + "/stat")
      << pid << " (" << comm << ") S " << parent << " 1 1 0 -1 4194304\n";
}

TEST(ProcessTreeTest, DescendantsFollowParentLinksOnly) {
  std::unordered_map<int64_t, int64_t> parents = {{1, 0}, {10, 1}, {11, 10}, {12, 11}, {13, 10}, {20, 1}, {21, 20}};
  EXPECT_EQ(DescendantsOf({10}, parents), (std::set<int64_t>{10, 11, 12, 13}));
  EXPECT_EQ(DescendantsOf({11, 20}, parents), (std::set<int64_t>{11, 12, 20, 21}));
  EXPECT_TRUE(DescendantsOf({99}, parents).empty());  // an exited root
}

TEST(ProcessTreeTest, ParentMapReadsStatFilesWithAwkwardNames) {
  std::string root = testing::MakeTempDir("proc_tree");
  WriteStat(root, 100, "python3", 1);
  WriteStat(root, 101, "pt_main) S 7 (", 100);  // ")" and a fake parent inside the name
  WriteStat(root, 102, "nccl worker", 101);
  std::filesystem::create_directories(root + "/self");  // not a pid: skipped
  auto parents = ReadParentMap(root);
  ASSERT_EQ(parents.size(), 3u);
  EXPECT_EQ(parents[101], 100);
  EXPECT_EQ(parents[102], 101);
}

TEST(ProcessTreeTest, TrackerKeepsReparentedMembersAndExcludesTheLauncher) {
  std::string root = testing::MakeTempDir("proc_tracker");
  WriteStat(root, 50, "kraken", 1);
  WriteStat(root, 51, "sh", 50);
  WriteStat(root, 52, "worker", 51);
  ProcessTreeTracker tracker(50, /*include_root=*/false, root);
  EXPECT_EQ(tracker.Refresh(), (std::set<int64_t>{51, 52}));
  // sh exits; its worker is re-parented to init but stays in the tree.
  std::filesystem::remove_all(root + "/51");
  WriteStat(root, 52, "worker", 1);
  WriteStat(root, 53, "unrelated", 1);
  EXPECT_EQ(tracker.Refresh(), (std::set<int64_t>{52}));
  EXPECT_EQ(tracker.ever_members(), (std::set<int64_t>{51, 52}));
}

TEST(ProcessTreeTest, TrackerFollowsSeveralRootsOfAPidSet) {
  // A profiling session over pids 60 and 70: both trees, roots included, nothing else.
  std::string root = testing::MakeTempDir("proc_tracker_roots");
  WriteStat(root, 60, "python3", 1);
  WriteStat(root, 61, "dataloader", 60);
  WriteStat(root, 70, "server", 1);
  WriteStat(root, 71, "worker", 70);
  WriteStat(root, 72, "worker", 71);
  WriteStat(root, 80, "unrelated", 1);
  ProcessTreeTracker tracker(std::set<int64_t>{60, 70}, /*include_roots=*/true, root);
  EXPECT_EQ(tracker.Refresh(), (std::set<int64_t>{60, 61, 70, 71, 72}));
  // Root 60 ends; its child stays while it lives, the other tree is unchanged.
  std::filesystem::remove_all(root + "/60");
  WriteStat(root, 61, "dataloader", 1);
  EXPECT_EQ(tracker.Refresh(), (std::set<int64_t>{61, 70, 71, 72}));
  EXPECT_EQ(tracker.ever_members(), (std::set<int64_t>{60, 61, 70, 71, 72}));
}

TEST(ProcessTreeTest, RealProcFindsThisProcessesChild) {
  pid_t child = fork();
  if (child == 0) {
    sleep(5);
    _exit(0);
  }
  ProcessTreeTracker tracker(getpid(), false);
  const std::set<int64_t>& members = tracker.Refresh();
  EXPECT_EQ(members.count(child), 1u);
  EXPECT_EQ(members.count(getpid()), 0u);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

}  // namespace
}  // namespace kraken::profiling
