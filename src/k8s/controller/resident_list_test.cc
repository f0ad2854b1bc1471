// The resident-list rule apart from the API server: what a pass keeps, drops and how it
// orders and cuts the list (k8s/controller/resident_list.h). Entries are written by hand in the
// format ResidentEntry produces.
#include "k8s/controller/resident_list.h"

#include <gtest/gtest.h>

#include "k8s/client/demand_annotation.h"

namespace kraken::k8s {
namespace {

TEST(ResidentListTest, EntryPodAndNamespaceAreReadAsText) {
  EXPECT_EQ(ResidentEntryPod("v1;pod=ml/etl-0;gpu=0;busy=0.200"), "ml/etl-0");
  EXPECT_EQ(ResidentEntryNamespace("v1;pod=ml/etl-0;gpu=0;busy=0.200"), "ml");
  // Another version, or a malformed figure: still attributed.
  EXPECT_EQ(ResidentEntryNamespace("v2;pod=research/r-1;busy=7"), "research");
  EXPECT_EQ(ResidentEntryNamespace(" v1; pod=ml/x ;busy=2.5"), "ml");
  EXPECT_EQ(ResidentEntryPod("v1;busy=0.5"), "");
  EXPECT_EQ(ResidentEntryNamespace("v1;pod=noslash;busy=0.5"), "");
}

TEST(ResidentListTest, AnalysedNamespacesAreRewrittenOthersKept) {
  const std::string current =
      "v1;pod=ml/moved-0;gpu=1;busy=0.400,v1;pod=research/r-0;gpu=2;busy=0.300,"
      "v1;pod=ml/etl-0;gpu=0;busy=0.100,v2;pod=ml/new-format;x=1,v1;pod=team-b/bad;busy=1.5";
  ResidentListUpdate u = UpdateResidentList(current, {"v1;pod=ml/etl-0;gpu=0;busy=0.200;dram=0.180"}, {"ml"});
  // ml/etl-0 is rewritten with its new figures; ml/moved-0 left (stale); the ml v2 entry
  // is unparsable for v1 and dropped; research and team-b are another pass's: kept as
  // they were, even team-b's malformed one (busy unreadable: last).
  EXPECT_EQ(u.value,
            "v1;pod=research/r-0;gpu=2;busy=0.300,v1;pod=ml/etl-0;gpu=0;busy=0.200;dram=0.180,"
            "v1;pod=team-b/bad;busy=1.5");
  EXPECT_EQ(u.kept_other, 2);
  EXPECT_EQ(u.dropped_stale, 1);
  EXPECT_EQ(u.dropped_unparsable, 1);
  EXPECT_EQ(u.dropped_over_cap, 0);
}

TEST(ResidentListTest, EmptyIsNoneAndNoneReadsAsEmpty) {
  EXPECT_EQ(UpdateResidentList("", {}, {"ml"}).value, "none");
  EXPECT_EQ(UpdateResidentList("none", {}, {"ml"}).value, "none");
  ResidentListUpdate u = UpdateResidentList("v1;pod=ml/a;gpu=0;busy=0.900", {}, {"ml"});
  EXPECT_EQ(u.value, "none");
  EXPECT_EQ(u.dropped_stale, 1);
  // An entry without pod= belongs to no namespace a pass analyses: kept.
  EXPECT_EQ(UpdateResidentList("v1;gpu=0;busy=0.900", {}, {"ml"}).value, "v1;gpu=0;busy=0.900");
}

TEST(ResidentListTest, OverTheCapTheBusiestWin) {
  std::vector<std::string> now;
  for (int i = 0; i < 18; ++i) {
    std::string busy = "0.0" + std::to_string(10 + i);  // 0.010 .. 0.027
    now.push_back(ResidentEntry("ml/p-" + std::to_string(i), 0, "v1;busy=" + busy));
  }
  ResidentListUpdate u = UpdateResidentList("v1;pod=other/q;busy=0.015", now, {"ml"});
  EXPECT_EQ(u.dropped_over_cap, 3);
  ResidentDemand parsed = ParseResidentDemand(u.value);
  ASSERT_EQ(parsed.entries.size(), kMaxResidentEntries);
  EXPECT_EQ(parsed.entries.front().pod, "ml/p-17");  // busy 0.027
  EXPECT_EQ(parsed.entries.back().pod, "ml/p-3");    // busy 0.013, the lowest kept
  // The other namespace's 0.015 ranks among them, after ml/p-5's equal busy (by text).
  EXPECT_EQ(parsed.entries[11].pod, "ml/p-6");
  EXPECT_EQ(parsed.entries[12].pod, "ml/p-5");
  EXPECT_EQ(parsed.entries[13].pod, "other/q");
  EXPECT_EQ(parsed.entries[14].pod, "ml/p-4");
}

}  // namespace
}  // namespace kraken::k8s
