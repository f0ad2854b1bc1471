// Loading ranks on several threads gives the same profiles, in the same order, as the
// serial importer; directories and bad inputs behave like files do.
#include "app/parallel_inputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/diff_request.h"
#include "app/parallel_work.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken {
namespace {

TEST(ParallelInputs, ArchiveMembersInArchiveOrderLikeTheSerialImporter) {
  const std::string tar = testing::DataPath("kineto/param/dlrm_kineto.tar.gz");
  auto serial = ImportFile(BuiltinImporters(), tar);
  ASSERT_TRUE(serial.ok()) << serial.status().message();
  for (size_t threads : {1, 2, 4}) {
    LoadedProfiles loaded;
    ASSERT_TRUE(LoadProfileInputsParallel({tar}, InputOptions{}, threads, &loaded).ok());
    ASSERT_EQ(loaded.profiles.size(), 8u) << threads;
    for (size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(loaded.profiles[i].metadata.source, (*serial)[i].metadata.source) << threads;
      EXPECT_EQ(loaded.profiles[i].metadata.rank, (*serial)[i].metadata.rank);
      EXPECT_EQ(loaded.profiles[i].kernels.size(), (*serial)[i].kernels.size());
      EXPECT_EQ(loaded.origins[i], tar);
    }
  }
}

TEST(ParallelInputs, DirectoryFilesSortedByName) {
  const std::string dir = testing::DataPath("kineto/hta/trace_filter");
  LoadedProfiles loaded;
  ASSERT_TRUE(LoadProfileInputsParallel({dir}, InputOptions{}, 2, &loaded).ok());
  ASSERT_EQ(loaded.profiles.size(), 2u);
  EXPECT_NE(loaded.profiles[0].metadata.source.find("sampled_rank-0"), std::string::npos);
  EXPECT_NE(loaded.profiles[1].metadata.source.find("sampled_rank-1"), std::string::npos);
}

TEST(ParallelInputs, DirectoryEntriesInNoKnownFormatAreSkippedAndCounted) {
  const std::string dir = testing::MakeTempDir("parallel_inputs_mixed");
  std::filesystem::create_symlink(testing::DataPath("kineto/hta/trace_compare/base/base.json.gz"), dir + "/rank0.json.gz");
  std::ofstream(dir + "/README.txt") << "how these traces were taken\n";
  LoadedProfiles loaded;
  ASSERT_TRUE(LoadProfileInputsParallel({dir}, InputOptions{}, 2, &loaded).ok());
  ASSERT_EQ(loaded.profiles.size(), 1u);
  EXPECT_EQ(loaded.profiles[0].import_counters.at("directory_files_skipped"), 1);
  const std::string only_text = testing::MakeTempDir("parallel_inputs_text");
  std::ofstream(only_text + "/notes.txt") << "nothing to import\n";
  Status s = LoadProfileInputsParallel({only_text}, InputOptions{}, 2, &loaded);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("1 files skipped"), std::string::npos) << s.message();
}

TEST(ParallelInputs, ErrorsNameTheInputAndNothingIsReturned) {
  const std::string empty = testing::MakeTempDir("parallel_inputs_empty");
  LoadedProfiles loaded;
  Status s = LoadProfileInputsParallel({empty}, InputOptions{}, 2, &loaded);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(empty), std::string::npos) << s.message();
  const std::string junk = testing::MakeTempDir("parallel_inputs_junk") + "/junk.json";
  std::ofstream(junk) << "this is not a trace\n";
  const std::string good = testing::DataPath("kineto/hta/trace_compare/base/base.json.gz");
  s = LoadProfileInputsParallel({good, junk}, InputOptions{}, 2, &loaded);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("junk.json"), std::string::npos) << s.message();
  EXPECT_TRUE(loaded.profiles.empty());
}

TEST(ParallelWork, EveryIndexOnceWhateverTheThreads) {
  for (size_t threads : {1, 2, 7}) {
    std::vector<int> hits(1000, 0);
    ParallelFor(hits.size(), threads, [&](size_t i) { ++hits[i]; });
    for (int h : hits) EXPECT_EQ(h, 1);
  }
  ParallelFor(0, 4, [](size_t) { FAIL(); });
}

TEST(DiffRequest, SideWithoutGpuTimelineIsRefusedByName) {
  auto cpu_only = ImportFile(BuiltinImporters(), testing::DataPath("kineto/hta/rank_non_gpu/rank_non_gpu.json.gz"));
  auto gpu = ImportFile(BuiltinImporters(), testing::DataPath("kineto/hta/trace_compare/base/base.json.gz"));
  ASSERT_TRUE(cpu_only.ok() && gpu.ok());
  DiffSettings settings;
  settings.a_name = "cpu.json";
  settings.b_name = "gpu.json";
  auto d = DiffProfiles(*cpu_only, *gpu, settings);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("A (cpu.json)"), std::string::npos) << d.status().message();
  auto same = DiffProfiles(*gpu, *gpu, settings);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->step.delta_ns(), 0);
  for (const DiffEntry& e : same->ranked) EXPECT_EQ(e.delta_ns(), 0) << e.name;
}

}  // namespace
}  // namespace kraken
