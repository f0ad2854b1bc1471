// Process utilization on the slow cadence: nvmlDeviceGetProcessUtilization is asked once
// per slow interval per GPU, and because the driver keeps its samples and answers those
// newer than lastSeenTimeStamp, no sample is lost between two reads and none is counted
// twice. Shown on a fake driver that keeps a sample buffer, and on the replay library with
// a capture recorded when every pass read them.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/testing/built_files.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_test_support.h"

namespace kraken::nvml {
namespace {

using testing::FixturePath;
using testing::Pick;
using testing::ValuesOf;

// One GPU whose driver takes a sample of pid 7 every 200 ms and of pid 8 every 300 ms
// (timestamps on the test's clock, SM% numbering them), keeps them all, and answers those
// newer than lastSeenTimeStamp up to now, as NVML documents it.
class BufferedSamplesNvml : public NvmlApi {
 public:
  explicit BufferedSamplesNvml(const int64_t& now_us) : now_us_(now_us) {}
  int process_utilization_calls = 0;

  nvmlReturn_t Init() override { return NVML_SUCCESS; }
  nvmlReturn_t Shutdown() override { return NVML_SUCCESS; }
  nvmlReturn_t DeviceGetCount(unsigned int* n) override {
    *n = 1;
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetHandleByIndex(unsigned int, nvmlDevice_t* d) override {
    *d = reinterpret_cast<nvmlDevice_t>(&handle_);
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t* u) override {
    *u = nvmlUtilization_t{50, 10};
    return NVML_SUCCESS;
  }
  nvmlReturn_t DeviceGetProcessUtilization(nvmlDevice_t, nvmlProcessUtilizationSample_t* s, unsigned int* n,
                                           unsigned long long last_seen) override {
    ++process_utilization_calls;
    std::vector<nvmlProcessUtilizationSample_t> fresh;
    for (const nvmlProcessUtilizationSample_t& sample : TakenUntil(now_us_))
      if (sample.timeStamp > last_seen) fresh.push_back(sample);
    if (fresh.empty()) return NVML_ERROR_NOT_FOUND;
    if (s == nullptr || *n < fresh.size()) {
      *n = static_cast<unsigned int>(fresh.size());
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (size_t i = 0; i < fresh.size(); ++i) s[i] = fresh[i];
    *n = static_cast<unsigned int>(fresh.size());
    return NVML_SUCCESS;
  }

  // Every sample the driver took up to `until_us`, oldest first.
  static std::vector<nvmlProcessUtilizationSample_t> TakenUntil(int64_t until_us) {
    std::vector<nvmlProcessUtilizationSample_t> taken;
    for (int64_t t = 1; t <= until_us; ++t) {  // µs from 1: 0 is "everything" to NVML
      if (t % 200'000 == 0) taken.push_back({7, static_cast<unsigned long long>(t), Numbered(t, 200'000), 1, 0, 0});
      if (t % 300'000 == 0) taken.push_back({8, static_cast<unsigned long long>(t), Numbered(t, 300'000), 2, 0, 0});
    }
    return taken;
  }

 private:
  static unsigned int Numbered(int64_t t, int64_t period) { return static_cast<unsigned int>(t / period % 100); }
  const int64_t& now_us_;
  int handle_ = 0;
};

// The mean SM % of the samples `BufferedSamplesNvml` took of `pid` in (after_us, until_us].
double MeanSmOfPidTakenBetween(uint32_t pid, int64_t after_us, int64_t until_us) {
  double sum = 0;
  int count = 0;
  for (const nvmlProcessUtilizationSample_t& s : BufferedSamplesNvml::TakenUntil(until_us))
    if (s.pid == pid && static_cast<int64_t>(s.timeStamp) > after_us) {
      sum += s.smUtil;
      ++count;
    }
  return count == 0 ? -1 : sum / count;
}

TEST(NvmlProcessCadenceTest, ReadOncePerSlowIntervalWithoutLosingOrRepeatingSamples) {
  int64_t now_us = 0;
  BufferedSamplesNvml api(now_us);
  NvmlSampler sampler(api, NvmlSamplerOptions{"", 1'000'000, [&now_us] { return now_us; }});
  ASSERT_TRUE(sampler.Open().ok());
  SampleBatch batch;
  std::vector<std::pair<uint32_t, uint64_t>> delivered;  // (pid, timestamp) the reader got
  std::vector<int> read_passes;
  for (int pass = 0; pass < 45; ++pass) {  // 4.4 s at 100 ms
    now_us = pass * 100'000;
    sampler.Sample(batch);
    const DeviceFrame& f = sampler.last_frame().devices[0];
    auto sm7 = ValuesOf(batch, Metric::kProcessSmUtilPct, Pick{0, -1, 7});
    if (!f.process_utilization_read) {
      EXPECT_TRUE(f.process_utilization.value.empty()) << pass;
      EXPECT_TRUE(sm7.empty()) << pass;  // no value between reads, not a 0
      continue;
    }
    // The batch has the mean of each pid's samples since the previous read: pid 7's five
    // (200 ms apart) numbered by their slots.
    if (pass > 0) {
      EXPECT_EQ(sm7, (std::vector<double>{MeanSmOfPidTakenBetween(7, read_passes.back() * 100'000, now_us)})) << pass;
    }
    read_passes.push_back(pass);
    for (const ProcessUtilization& s : f.process_utilization.value) delivered.emplace_back(s.pid, s.time_us);
  }
  EXPECT_EQ(read_passes, (std::vector<int>{0, 10, 20, 30, 40}));
  EXPECT_EQ(api.process_utilization_calls, 5);  // one per read: the reader's buffer holds a second's samples
  std::vector<std::pair<uint32_t, uint64_t>> taken;
  for (const auto& s : BufferedSamplesNvml::TakenUntil(4'000'000)) taken.emplace_back(s.pid, s.timeStamp);
  EXPECT_EQ(delivered, taken);  // every sample up to the last read, each once, in order
  EXPECT_EQ(std::set(delivered.begin(), delivered.end()).size(), delivered.size());
}

std::string ReadFixtureText(const std::string& name) {
  std::ifstream in(FixturePath(name), std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A capture recorded when every pass read process utilization, replayed on the slow
// cadence: the replay keeps the samples like the driver does, and each reaches the reader
// once. GPU d reads d/8 s after GPU 0, so its reads fall on other frames.
TEST(NvmlProcessCadenceTest, ReplayOfAnEveryPassCaptureLosesNoSampleOnTheSlowCadence) {
  auto capture = ParseCapture(ReadFixtureText("h100x8.nvml"));
  ASSERT_TRUE(capture.ok()) << capture.status().message();
  const size_t gpus = capture->devices.size();
  std::vector<std::multiset<std::pair<uint32_t, uint32_t>>> recorded(gpus);  // (pid, SM%) per GPU
  size_t recorded_count = 0;
  for (const Frame& frame : capture->frames)
    for (size_t d = 0; d < gpus; ++d)
      for (const ProcessUtilization& s : frame.devices[d].process_utilization.value) {
        recorded[d].emplace(s.pid, s.sm_pct);
        ++recorded_count;
      }
  ASSERT_GT(recorded_count, 0u);

  ::setenv("KRAKEN_NVML_REPLAY", FixturePath("h100x8.nvml").c_str(), 1);
  int64_t now_us = 0;
  auto session = OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, NvmlSamplerOptions{"", 1'000'000, [&] { return now_us; }});
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<std::multiset<std::pair<uint32_t, uint32_t>>> delivered(gpus);
  std::set<std::tuple<size_t, uint32_t, uint64_t>> seen;  // (GPU, pid, timestamp): a sample delivered twice repeats one
  SampleBatch batch;
  // One round of the capture's frames, and the passes until GPU 7's read after frame 9
  // (the next round's frames 0-3 have no samples).
  for (int pass = 0; pass < 14; ++pass) {
    session->sampler->Sample(batch);
    const Frame& frame = session->sampler->last_frame();
    for (size_t d = 0; d < gpus; ++d)
      for (const ProcessUtilization& s : frame.devices[d].process_utilization.value) {
        delivered[d].emplace(s.pid, s.sm_pct);
        EXPECT_TRUE(seen.emplace(d, s.pid, s.time_us).second) << "GPU " << d << " pass " << pass;
      }
    now_us += 250'000;
  }
  for (size_t d = 0; d < gpus; ++d) EXPECT_EQ(delivered[d], recorded[d]) << "GPU " << d;
}

// --slow-interval 0 keeps every pass reading them: the replay answers each pass what its
// frame recorded, as before the slow cadence.
TEST(NvmlProcessCadenceTest, SlowIntervalZeroReadsEveryPassAsRecorded) {
  auto capture = ParseCapture(ReadFixtureText("h100.nvml"));
  ASSERT_TRUE(capture.ok()) << capture.status().message();
  auto session = testing::OpenReplay(FixturePath("h100.nvml"));  // slow_interval_us = 0
  ASSERT_TRUE(session.ok()) << session.status().message();
  SampleBatch batch;
  for (size_t pass = 0; pass < capture->frames.size(); ++pass) {
    session->sampler->Sample(batch);
    const DeviceFrame& f = session->sampler->last_frame().devices[0];
    const DeviceFrame& want = capture->frames[pass].devices[0];
    EXPECT_TRUE(f.process_utilization_read) << pass;
    EXPECT_EQ(f.process_utilization.rc, want.process_utilization.rc) << pass;
    ASSERT_EQ(f.process_utilization.value.size(), want.process_utilization.value.size()) << pass;
    for (size_t i = 0; i < want.process_utilization.value.size(); ++i)
      EXPECT_EQ(f.process_utilization.value[i].sm_pct, want.process_utilization.value[i].sm_pct) << pass;
  }
}

}  // namespace
}  // namespace kraken::nvml
