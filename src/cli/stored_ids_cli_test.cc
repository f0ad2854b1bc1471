// Every command that reads profiles takes stored ids ("12", "db:12") as `analyze` does:
// `disagg`, `mig-plan`, `temporal` and `colocate` on a stored profile print the same
// document as on the file it was imported from (they share app/profile_inputs.h).
#include <gtest/gtest.h>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

const std::string kResnet = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
const std::string kPhilly = "helios/philly_node_sequence.csv.gz";

// A store with the resnet trace as profile 1, the Philly series as 2 and two Orion kernel
// lists as 3 and 4.
class StoredIdsCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = testing::MakeTempDir("stored_ids_cli") + "/profiles.db";
    RunResult imported = RunKraken("import --db=" + db_ + " " + testing::DataPath(kResnet) + " " +
                                   testing::DataPath(kPhilly) + " " + Orion("resnet50_4_fwd") + " " +
                                   Orion("mobilenetv2_4_fwd"));
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
  }
  static std::string Orion(const std::string& stem) { return testing::DataPath("orion/" + stem + ".csv"); }
  // The command's standard output, which must succeed.
  static std::string Out(const std::string& args) {
    RunResult r = RunKraken(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return r.out;
  }
  static inline std::string db_;
};

TEST_F(StoredIdsCliTest, DisaggOfAStoredIdIsThatOfItsFile) {
  std::string from_file = Out("disagg --json " + testing::DataPath(kResnet));
  ASSERT_NE(from_file.find("\"workloads\""), std::string::npos);
  EXPECT_EQ(Out("disagg --json --db " + db_ + " 1"), from_file);
  EXPECT_EQ(Out("disagg --explain --db " + db_ + " db:1"), Out("disagg --explain " + testing::DataPath(kResnet)));
}

TEST_F(StoredIdsCliTest, MigPlanOfAStoredIdIsThatOfItsFile) {
  std::string from_file = Out("mig-plan --json --gpu a100-80gb-sxm " + testing::DataPath(kResnet));
  ASSERT_NE(from_file.find("\"workloads\""), std::string::npos);
  EXPECT_EQ(Out("mig-plan --json --gpu a100-80gb-sxm --db " + db_ + " 1"), from_file);
}

TEST_F(StoredIdsCliTest, TemporalOfAStoredIdIsThatOfItsFile) {
  std::string from_file = Out("temporal --json --series active --horizon 1h " + testing::DataPath(kPhilly));
  ASSERT_NE(from_file.find("\"period"), std::string::npos);
  EXPECT_EQ(Out("temporal --json --series active --horizon 1h --db " + db_ + " 2"), from_file);
}

TEST_F(StoredIdsCliTest, ColocateTakesStoredIdsAndFilesTogether) {
  std::string from_files = Out("colocate --json " + Orion("resnet50_4_fwd") + " " + Orion("mobilenetv2_4_fwd"));
  ASSERT_NE(from_files.find("\"predictions\""), std::string::npos);
  EXPECT_EQ(Out("colocate --json --db " + db_ + " 3 db:4"), from_files);
  EXPECT_EQ(Out("colocate --json --db " + db_ + " 3 " + Orion("mobilenetv2_4_fwd")), from_files);
}

TEST_F(StoredIdsCliTest, UnknownIdsAndMissingFilesAreOneLineErrors) {
  ExpectOneLineError(RunKraken("disagg --db " + db_ + " 99"), "no profile 99");
  ExpectOneLineError(RunKraken("temporal --db " + db_ + " 99"), "no profile 99");
  ExpectOneLineError(RunKraken("mig-plan --db " + db_ + " 99"), "no profile 99");
  ExpectOneLineError(RunKraken("colocate --db " + db_ + " 3 99"), "no profile 99");
  // A stored profile without series: temporal names it as it names a file.
  ExpectOneLineError(RunKraken("temporal --db " + db_ + " 1"), "holds no sampled series");
  // An id with no database at all, and a file that does not exist.
  ExpectOneLineError(RunKraken("disagg --db " + db_ + ".missing 1"), "no profile database here");
  ExpectOneLineError(RunKraken("mig-plan /nonexistent/trace.json"), "/nonexistent/trace.json");
  ExpectOneLineError(RunKraken("disagg /nonexistent/trace.json"), "/nonexistent/trace.json");
}

}  // namespace
}  // namespace kraken
