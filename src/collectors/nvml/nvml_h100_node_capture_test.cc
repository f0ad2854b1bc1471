// The NVML capture of a real H100 (examples/nvidia-h100-80gb-hbm3/node.nvml.gz, recorded by
// `kraken record-nvml` during validation run 2, docs/validation.md) replayed through
// libkraken_nvml_replay.so. The replay reads plain captures, so the test inflates the
// file into its temp dir first. Expected figures were read from the capture with Python
// (gzip + line parsing): 895 frames, power 73.967 W first and 481.624 W at most, GPM SM
// utilization in 894 frames (the first has none), above zero in 92 of them, utilization.gpu
// above zero in 93 frames, 98 % at most.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "base/byte_stream.h"
#include "base/testing/built_files.h"
#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/nvml_test_support.h"

namespace kraken::nvml {
namespace {

constexpr int kH100NodeFrames = 895;

// The capture, inflated into a temp file the replay library can read.
std::string InflatedH100NodeCapture() {
  std::string gz = kraken::testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/node.nvml.gz";
  auto file = OpenFileStream(gz);
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return "";
  auto inflated = MakeGzipStream(std::move(*file));
  auto text = ReadAll(*inflated);
  EXPECT_TRUE(text.ok()) << text.status().message();
  if (!text.ok()) return "";
  return testing::WriteTempFile("node.nvml", *text);
}

// One pid's process utilization in one read: the sums of its samples' percentages.
struct PidUtilizationSums {
  double sm_pct = 0;
  double mem_pct = 0;
  int samples = 0;
};

// Per pid, the mean (SM %, memory %) of the samples `capture` recorded in the frames that
// replay passes first_pass..last_pass show (the replay wraps around after the last frame);
// samples above 100 % are garbage the sampler leaves out.
std::map<int64_t, std::pair<double, double>> RecordedMeansPerPid(const Capture& capture, int first_pass, int last_pass,
                                                                 int* most_samples_of_a_pid) {
  std::map<int64_t, PidUtilizationSums> sums;
  for (int pass = first_pass; pass <= last_pass; ++pass)
    for (const ProcessUtilization& s :
         capture.frames[static_cast<size_t>(pass) % capture.frames.size()].devices[0].process_utilization.value) {
      if (s.sm_pct > 100 || s.mem_pct > 100) continue;
      PidUtilizationSums& pid = sums[s.pid];
      pid.sm_pct += s.sm_pct;
      pid.mem_pct += s.mem_pct;
      ++pid.samples;
    }
  std::map<int64_t, std::pair<double, double>> means;
  for (const auto& [pid, sum] : sums) {
    means[pid] = {sum.sm_pct / sum.samples, sum.mem_pct / sum.samples};
    *most_samples_of_a_pid = std::max(*most_samples_of_a_pid, sum.samples);
  }
  return means;
}

// Per pid, the (SM %, memory %) process utilization values `batch` has.
std::map<int64_t, std::pair<double, double>> BatchProcessUtilizationPerPid(const SampleBatch& batch) {
  std::map<int64_t, std::pair<double, double>> values;
  for (const SampleBatch::Value& v : batch.values) {
    int64_t pid = batch.entities[static_cast<size_t>(v.entity)].pid;
    if (v.metric == Metric::kProcessSmUtilPct) values[pid].first = v.value;
    if (v.metric == Metric::kProcessMemUtilPct) values[pid].second = v.value;
  }
  return values;
}

TEST(NvmlH100NodeCaptureTest, ReplayReportsTheRecordedH100) {
  auto session = testing::OpenReplay(InflatedH100NodeCapture());
  ASSERT_TRUE(session.ok()) << session.status().message();
  const NvmlSampler& sampler = *session->sampler;
  ASSERT_EQ(sampler.devices().size(), 1u);
  const DeviceInfo& d = sampler.devices()[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.uuid, "GPU-4d40fc8a-6969-cae3-1a6e-b4cdc6146f63");
  EXPECT_EQ(d.pci_bus_id, "00000000:00:06.0");
  EXPECT_EQ(d.memory_bytes, 85520809984);
  EXPECT_EQ(d.driver_version, "580.159.04");
  EXPECT_EQ(d.compute_major, 9);
  EXPECT_EQ(d.compute_minor, 0);
  EXPECT_EQ(d.max_sm_clock_mhz, 1980);
  EXPECT_EQ(d.max_mem_clock_mhz, 2619);
  EXPECT_EQ(d.power_limit_w, 700);
  EXPECT_EQ(d.pcie_generation, 5);
  EXPECT_TRUE(sampler.gpm_supported(0));
}

TEST(NvmlH100NodeCaptureTest, EveryFrameReplaysWithTheCapturedFigures) {
  auto session = testing::OpenReplay(InflatedH100NodeCapture());
  ASSERT_TRUE(session.ok()) << session.status().message();
  NvmlSampler& sampler = *session->sampler;
  SampleBatch batch;
  int gpm_passes = 0, sm_active_passes = 0, busy_passes = 0;
  double max_power_w = 0, max_sm_active = 0, max_util_pct = 0;
  std::vector<double> first_power_w;
  for (int pass = 0; pass < kH100NodeFrames; ++pass) {
    sampler.Sample(batch);
    auto power = testing::ValuesOf(batch, Metric::kPowerW);
    ASSERT_EQ(power.size(), 1u) << pass;
    if (pass < 3) first_power_w.push_back(power[0]);
    max_power_w = std::max(max_power_w, power[0]);
    auto util = testing::ValuesOf(batch, Metric::kGpuUtilPct);
    ASSERT_EQ(util.size(), 1u) << pass;
    busy_passes += util[0] > 0;
    max_util_pct = std::max(max_util_pct, util[0]);
    auto sm_active = testing::ValuesOf(batch, Metric::kSmActiveRatio);
    if (sm_active.empty()) continue;
    ++gpm_passes;
    sm_active_passes += sm_active[0] > 0;
    max_sm_active = std::max(max_sm_active, sm_active[0]);
  }
  EXPECT_EQ(first_power_w, (std::vector<double>{73.967, 73.972, 73.937}));
  EXPECT_DOUBLE_EQ(max_power_w, 481.624);
  EXPECT_EQ(busy_passes, 93);
  EXPECT_EQ(max_util_pct, 98);
  EXPECT_EQ(gpm_passes, kH100NodeFrames - 1);
  EXPECT_EQ(sm_active_passes, 92);
  EXPECT_NEAR(max_sm_active, 0.8320971302873379, 1e-12);
}

// The real H100 capture was recorded with process utilization read every 100 ms pass (its
// samples are ~200 ms apart: the driver's own period). Replayed on the default slow
// cadence (1 s, one read every 10th pass), every one of its samples reaches the reader
// once: the driver, and the replay, keep them until the next read.
TEST(NvmlH100NodeCaptureTest, TheSlowCadenceLosesNoneOfTheRecordedProcessSamples) {
  std::string path = InflatedH100NodeCapture();
  auto capture = ParseCapture(kraken::testing::ReadFileOrDie(path));
  ASSERT_TRUE(capture.ok()) << capture.status().message();
  std::multiset<std::pair<uint32_t, uint32_t>> recorded;  // (pid, SM%)
  for (const Frame& frame : capture->frames)
    for (const ProcessUtilization& s : frame.devices[0].process_utilization.value) recorded.emplace(s.pid, s.sm_pct);
  ASSERT_EQ(recorded.size(), 105u);

  ::setenv("KRAKEN_NVML_REPLAY", path.c_str(), 1);
  int64_t now_us = 0;
  NvmlSamplerOptions options{"", NvmlSamplerOptions::kDefaultSlowIntervalUs, [&now_us] { return now_us; }};
  auto session = OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::multiset<std::pair<uint32_t, uint32_t>> delivered;
  std::set<std::pair<uint32_t, uint64_t>> seen;  // (pid, timestamp)
  int reads = 0;
  SampleBatch batch;
  for (int pass = 0; pass < kH100NodeFrames + 10; ++pass) {  // the last frame's read comes after it
    session->sampler->Sample(batch);
    const DeviceFrame& f = session->sampler->last_frame().devices[0];
    reads += f.process_utilization_read;
    for (const ProcessUtilization& s : f.process_utilization.value) {
      delivered.emplace(s.pid, s.sm_pct);
      EXPECT_TRUE(seen.emplace(s.pid, s.time_us).second) << "pass " << pass;
    }
    now_us += 100'000;
  }
  EXPECT_EQ(reads, (kH100NodeFrames + 10 + 9) / 10);
  EXPECT_EQ(delivered, recorded);
}

// Replayed on the default 1 s cadence, a read gets the ~5 samples per pid the driver took
// since the previous read (recorded ~200 ms apart), and the batch has, per pid, their
// mean: the whole second's utilization, not the newest 200 ms of it.
TEST(NvmlH100NodeCaptureTest, EachSlowReadReportsThePidsMeanOfTheSamplesSinceThePreviousRead) {
  std::string path = InflatedH100NodeCapture();
  auto capture = ParseCapture(kraken::testing::ReadFileOrDie(path));
  ASSERT_TRUE(capture.ok()) << capture.status().message();
  ::setenv("KRAKEN_NVML_REPLAY", path.c_str(), 1);
  int64_t now_us = 0;
  NvmlSamplerOptions options{"", NvmlSamplerOptions::kDefaultSlowIntervalUs, [&now_us] { return now_us; }};
  auto session = OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  int previous_read = -1, pid_reads = 0, most_samples_of_a_pid = 0;
  SampleBatch batch;
  for (int pass = 0; pass < kH100NodeFrames + 10; ++pass, now_us += 100'000) {
    session->sampler->Sample(batch);
    auto reported = BatchProcessUtilizationPerPid(batch);
    if (!session->sampler->last_frame().devices[0].process_utilization_read) {
      EXPECT_TRUE(reported.empty()) << "pass " << pass;  // nothing between reads, not a 0
      continue;
    }
    auto expected = RecordedMeansPerPid(*capture, previous_read + 1, pass, &most_samples_of_a_pid);
    EXPECT_EQ(reported, expected) << "pass " << pass;
    pid_reads += static_cast<int>(expected.size());
    previous_read = pass;
  }
  EXPECT_GT(pid_reads, 0);
  EXPECT_EQ(most_samples_of_a_pid, 5);  // 1 s of samples 200 ms apart: the mean is of several
}

}  // namespace
}  // namespace kraken::nvml
