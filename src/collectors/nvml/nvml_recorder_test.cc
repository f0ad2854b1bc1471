// kraken record-nvml's recorder, tested where no GPU is: record from the replay library,
// then compare with the capture that was replayed (a round trip through the collector's
// own reader), and replay the recording again.
#include <gtest/gtest.h>

#include "base/testing/built_files.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_recorder.h"
#include "collectors/nvml/nvml_test_support.h"

namespace kraken::nvml {
namespace {

using testing::FixturePath;

Capture ReadFixture(const std::string& name) {
  Result<Capture> c = ParseCapture(kraken::testing::ReadFileOrDie(FixturePath(name)));
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(c).value() : Capture();
}

Result<Capture> RecordFromReplay(const std::string& capture_path, int64_t frames) {
  ::setenv("KRAKEN_NVML_REPLAY", capture_path.c_str(), 1);
  auto library = NvmlLibrary::Load(KRAKEN_NVML_REPLAY_LIBRARY);
  if (!library.ok()) return library.status();
  RecordOptions options;
  options.frames = frames;
  options.interval_us = 100'000;
  options.sleep = [](int64_t) {};  // the replay advances per pass, not per second
  return RecordCapture(**library, options);
}

// What a recording cannot reproduce of the replayed capture: the wall-clock times, the
// first GPM pass (no earlier sample to compare with) and when process samples were taken.
Frame Comparable(Frame frame) {
  frame.time_us = 0;
  for (DeviceFrame& d : frame.devices) {
    std::erase_if(d.fields, [](const FieldAnswer& f) { return f.rc == NVML_ERROR_NOT_SUPPORTED; });
    d.gpm = {};
    for (auto& [gi, mig] : d.migs) mig.gpm = {};
    for (ProcessUtilization& s : d.process_utilization.value) s.time_us = 0;
  }
  return frame;
}

void ExpectSameCapture(const Capture& recorded, const Capture& replayed) {
  EXPECT_EQ(recorded.system, replayed.system);
  EXPECT_EQ(recorded.devices, replayed.devices);
  EXPECT_EQ(recorded.topology, replayed.topology);
  // Compared as text so that a difference shows as a readable diff.
  auto text = [](const Frame& frame) {
    Capture one;
    one.frames.push_back(Comparable(frame));
    return WriteCapture(one);
  };
  for (size_t f = 0; f < recorded.frames.size(); ++f)
    EXPECT_EQ(text(recorded.frames[f]), text(replayed.frames[f % replayed.frames.size()])) << "frame " << f;
}

TEST(NvmlRecorderTest, RecordingTheReplayGivesBackItsCapture) {
  for (const char* fixture : {"h100.nvml", "h100-mig.nvml", "h200-mig.nvml", "l40s.nvml"}) {
    Result<Capture> recorded = RecordFromReplay(FixturePath(fixture), 12);  // 2 frames past the wrap
    ASSERT_TRUE(recorded.ok()) << fixture << ": " << recorded.status().message();
    ASSERT_EQ(recorded->frames.size(), 12u);
    EXPECT_EQ(recorded->info.at("source"), "recorded");
    SCOPED_TRACE(fixture);
    ExpectSameCapture(*recorded, ReadFixture(fixture));
  }
}

TEST(NvmlRecorderTest, ARecordingReplaysLikeTheOriginal) {
  Result<Capture> recorded = RecordFromReplay(FixturePath("h100.nvml"), 10);
  ASSERT_TRUE(recorded.ok()) << recorded.status().message();
  std::string text = WriteCapture(*recorded);
  Result<Capture> parsed = ParseCapture(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(WriteCapture(*parsed), text);
  EXPECT_EQ(parsed->devices, recorded->devices);
  // Sample both through the collector: every pass gives the same values.
  std::string path = testing::WriteTempFile("recorded.nvml", text);
  auto original = testing::ReplaySeries("h100.nvml", Metric::kPowerW, 10);
  auto replayed = testing::OpenReplay(path);
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  EXPECT_EQ(testing::Series(*replayed->sampler, Metric::kPowerW, 10), original);
  replayed = InvalidInput("closed");
  auto burn = testing::OpenReplay(path);
  ASSERT_TRUE(burn.ok());
  EXPECT_EQ(testing::Series(*burn->sampler, Metric::kProcessSmUtilPct, 10, testing::Pick{0, -1, 11345}),
            (std::vector<double>{-1, -1, -1, -1, -1, 99, 99, 99, 99, 99}));
}

// A stop request ends the recording before the next frame; the first frame is always taken.
TEST(NvmlRecorderTest, AStopRequestKeepsTheFramesRecordedSoFar) {
  ::setenv("KRAKEN_NVML_REPLAY", FixturePath("h100.nvml").c_str(), 1);
  auto library = NvmlLibrary::Load(KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_TRUE(library.ok());
  RecordOptions options;
  options.frames = 100;
  options.sleep = [](int64_t) {};
  int asked = 0;
  options.stop_requested = [&asked] { return ++asked >= 7; };  // asked before frames 1..7
  Result<Capture> stopped = RecordCapture(**library, options);
  ASSERT_TRUE(stopped.ok()) << stopped.status().message();
  EXPECT_EQ(stopped->frames.size(), 7u);
  options.stop_requested = [] { return true; };
  Result<Capture> at_once = RecordCapture(**library, options);
  ASSERT_TRUE(at_once.ok());
  EXPECT_EQ(at_once->frames.size(), 1u);
}

TEST(NvmlRecorderTest, RefusesABadInterval) {
  ::setenv("KRAKEN_NVML_REPLAY", FixturePath("h100.nvml").c_str(), 1);
  auto library = NvmlLibrary::Load(KRAKEN_NVML_REPLAY_LIBRARY);
  ASSERT_TRUE(library.ok());
  RecordOptions options;
  options.interval_us = 0;
  Result<Capture> c = RecordCapture(**library, options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "the interval must be positive");
}

}  // namespace
}  // namespace kraken::nvml
